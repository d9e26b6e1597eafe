#include "core/pipeline/schedule_edits_loading.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "core/pipeline/pipeline.h"
#include "core/schedule/schedule_edits.h"

namespace rammer::pipeline {

std::optional<ir::Diagnostic> fileProblem(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return ir::makeError(what + " not found", {}, path);
  if (!std::filesystem::is_regular_file(status)) return ir::makeError(what + " is not a regular file", {}, path);
  return std::nullopt;
}

namespace {

// Whether every node the edits name is a live node of `g`.
bool namesNodesOf(const ir::Graph& g, const schedule::Constraints& c) {
  std::set<std::string> live;
  for (size_t i = 0; i < g.numNodeSlots(); ++i)
    if (const ir::Node& n = g.node(static_cast<ir::NodeId>(i)); !n.removed) live.insert(n.name);
  const auto known = [&](const std::string& name) { return live.count(name) > 0; };
  return std::all_of(c.kernelFor.begin(), c.kernelFor.end(), [&](const auto& kv) { return known(kv.first); }) &&
         std::all_of(c.pins.begin(), c.pins.end(), [&](const auto& p) { return known(p.node); }) &&
         std::all_of(c.cutBefore.begin(), c.cutBefore.end(), known) &&
         std::all_of(c.noCutBefore.begin(), c.noCutBefore.end(), known);
}

// The constraints: the options' own, or those of the edits file.
ir::Result<schedule::Constraints> constraintsOf(const Options& o, const ir::Graph& optimized, const ir::Graph* fused) {
  if (o.scheduleEditsFile.empty()) return o.constraints;
  if (auto problem = fileProblem(o.scheduleEditsFile, "schedule edits file")) return std::move(*problem);
  std::ifstream in(o.scheduleEditsFile, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return ir::makeError("cannot read the schedule edits file", {}, o.scheduleEditsFile);
  auto parsed = schedule::parseScheduleEdits(text.str(), &optimized, o.scheduleEditsFile);
  if (!parsed && fused) {
    // Edits made on a plan with attention fused name its operators.
    if (auto f = schedule::parseScheduleEdits(text.str(), fused, o.scheduleEditsFile)) parsed = std::move(f);
  }
  return parsed;
}

}  // namespace

ir::Result<LoadedEdits> loadScheduleEdits(const Options& options, const ir::Graph& optimized,
                                          const ir::Graph* fused) {
  auto c = constraintsOf(options, optimized, fused);
  if (!c) return c.errors();
  const bool namesFused = fused && !c->empty() && !namesNodesOf(optimized, *c) && namesNodesOf(*fused, *c);
  return LoadedEdits{std::move(c).value(), namesFused};
}

}  // namespace rammer::pipeline
