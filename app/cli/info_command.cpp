// rammer info MODEL [--json] [--batch N]: what a model is made of and costs.
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/model_loading.h"
#include "app/cli/optimize.h"
#include "core/ops/model_summary.h"

namespace rammer::cli {

namespace {

struct InfoOptions {
  std::string model;
  bool json = false;
  int64_t batch = 0;  // 0: not given
  bool optimize = false;
  bool printPasses = false;
};

// Op histogram before and after the passes, one line per op type.
void printHistogramChange(const std::map<std::string, size_t>& before, const std::map<std::string, size_t>& after) {
  fmt::print("ops before -> after --optimize\n");
  std::map<std::string, std::pair<size_t, size_t>> rows;
  for (const auto& [op, n] : before) rows[op].first = n;
  for (const auto& [op, n] : after) rows[op].second = n;
  size_t width = 0;
  for (const auto& [op, n] : rows) width = std::max(width, op.size());
  for (const auto& [op, n] : rows) fmt::print("  {:<{}}  {:>6} -> {}\n", op, width, n.first, n.second);
}

void printPassLog(const std::vector<passes::PassRecord>& records) {
  fmt::print("passes\n");
  for (const auto& r : records) {
    fmt::print("  {:<34} {:>6} -> {:<6} nodes {:8.2f} ms\n", r.pass, r.nodesBefore, r.nodesAfter, r.milliseconds);
    for (const auto& note : r.notes) fmt::print("      {}\n", note);
  }
}

nlohmann::json passesToJson(const std::vector<passes::PassRecord>& records) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : records)
    out.push_back({{"pass", r.pass}, {"changed", r.changed}, {"nodes_before", r.nodesBefore},
                   {"nodes_after", r.nodesAfter}, {"milliseconds", r.milliseconds}, {"notes", r.notes}});
  return out;
}

void printValues(const char* title, const std::vector<ops::ValueSummary>& values) {
  fmt::print("{}\n", title);
  size_t width = 0;
  for (const auto& v : values) width = std::max(width, v.name.size());
  for (const auto& v : values)
    fmt::print("  {:<{}}  {} {}\n", v.name, width, ir::dtypeName(v.type.dtype), shapeText(v.type, v.dimParams));
}

void printCounts(const char* title, const std::vector<std::pair<std::string, int64_t>>& counts) {
  fmt::print("{}\n", title);
  size_t width = 0;
  for (const auto& [name, n] : counts) width = std::max(width, name.size());
  for (const auto& [name, n] : counts) fmt::print("  {:<{}}  {}\n", name, width, n);
}

void printSummary(const ops::ModelSummary& s, const std::string& model) {
  fmt::print("model       {}\n", model);
  if (!s.name.empty()) fmt::print("graph       {}\n", s.name);
  fmt::print("opset       {}\n", s.opset);
  fmt::print("nodes       {}\n", s.nodeCount);
  fmt::print("parameters  {} ({})\n", ops::formatCount(s.parameterCount), ops::formatBytes(s.parameterBytes));
  if (s.flopsUnknownNodes == 0)
    fmt::print("flops       {}\n", ops::formatFlops(s.flops));
  else
    fmt::print("flops       {} ({} nodes not counted: unknown shapes or unsupported ops)\n",
               ops::formatFlops(s.flops), s.flopsUnknownNodes);
  printValues("inputs", s.inputs);
  printValues("outputs", s.outputs);
  printCounts("ops", s.opHistogram);
  printCounts("categories", s.categoryCounts);
}

int runInfo(const InfoOptions& o, const GlobalOptions& global) {
  Progress progress(global);
  onnx_import::ImportOptions options;
  if (o.batch > 0) options.batch = o.batch;
  std::shared_ptr<const ir::Graph> graph = loadModel(o.model, options, progress);
  const bool optimize = o.optimize || o.printPasses;
  const auto before = passes::opHistogram(*graph);
  std::vector<passes::PassRecord> records;
  if (optimize) {
    OptimizedGraph optimized = optimizeGraph(graph, progress);
    graph = std::move(optimized.graph);
    records = std::move(optimized.passes);
  }
  ops::ModelSummary summary = ops::summarize(*graph);
  if (o.json) {
    nlohmann::json j = summaryToJson(summary, o.model);
    if (optimize) {
      j["ops_before_optimize"] = before;
      j["passes"] = passesToJson(records);
    }
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  printSummary(summary, o.model);
  if (optimize) printHistogramChange(before, passes::opHistogram(*graph));
  if (o.printPasses) printPassLog(records);
  return 0;
}

}  // namespace

Command addInfoCommand(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<InfoOptions>();
  CLI::App* sub = app.add_subcommand("info", "Show a model's inputs, outputs, operators, parameters and FLOPs");
  sub->add_option("MODEL", opts->model, "ONNX model file")->required();
  sub->add_flag("--json", opts->json, "Print one JSON object instead of text");
  sub->add_option("--batch", opts->batch, "Bind symbolic leading dims of the inputs to N")->check(CLI::PositiveNumber);
  sub->add_flag("--optimize", opts->optimize, "Run the graph passes; show the op histogram before and after");
  sub->add_flag("--print-passes", opts->printPasses, "Run the graph passes and list what each one changed");
  return Command{sub, [opts, &global] { return runInfo(*opts, global); }};
}

}  // namespace rammer::cli
