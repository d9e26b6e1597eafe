#include "core/pipeline/launch_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/schedule/policy_registry.h"
#include "core/sim/simulator.h"

namespace rammer::pipeline {

namespace {

// Each program's share of the predicted latency: from the end of the one
// before it (its launch included) to its own end.
std::vector<double> programSpans(const sim::Trace& t) {
  std::vector<double> spans(t.programs.size(), 0);
  double before = 0;
  for (const sim::ProgramEvent& p : t.programs) {
    if (p.program < 0 || static_cast<size_t>(p.program) >= spans.size()) continue;
    spans[static_cast<size_t>(p.program)] = p.endUs - before;
    before = std::max(before, p.endUs);
  }
  return spans;
}

bool sameOperators(const schedule::Plan& a, const schedule::Plan& b) {
  if (a.ops.size() != b.ops.size()) return false;
  for (size_t i = 0; i < a.ops.size(); ++i)
    if (a.ops[i].node != b.ops[i].node || a.ops[i].name != b.ops[i].name || a.ops[i].isView != b.ops[i].isView)
      return false;
  return true;
}

}  // namespace

std::optional<LaunchChoice> chooseLaunches(schedule::Plan& chosen, const schedule::Plan& launches,
                                           std::shared_ptr<const sim::CostModel> model) {
  if (!sameOperators(chosen, launches)) return std::nullopt;
  const sim::Simulator simulator(std::move(model));
  auto persistent = simulator.run(chosen);
  auto base = simulator.run(launches);
  if (!persistent || !base) return std::nullopt;
  const std::vector<double> spans = programSpans(*persistent), baseSpans = programSpans(*base);
  // Each launch program of RammerBase's plan by the operators it runs.
  std::map<int32_t, size_t> launchOf;
  for (size_t q = 0; q < launches.programs.size(); ++q)
    for (int32_t op : schedule::opsOfProgram(launches, q)) launchOf[op] = q;

  LaunchChoice out;
  schedule::Plan mixed = chosen;
  mixed.programs.clear();
  std::vector<std::string> lines;
  for (size_t p = 0; p < chosen.programs.size(); ++p) {
    const std::vector<int32_t> ops = schedule::opsOfProgram(chosen, p);
    std::vector<size_t> qs;
    bool covered = !chosen.programs[p].dynamic && !ops.empty();
    for (int32_t op : ops) {
      auto it = launchOf.find(op);
      if (it == launchOf.end()) covered = false;
      else if (qs.empty() || qs.back() != it->second) qs.push_back(it->second);
    }
    // RammerBase's programs must hold exactly these operators (an edit may merge two).
    double asLaunches = 0;
    size_t held = 0;
    for (size_t q : qs) {
      asLaunches += baseSpans[q];
      held += schedule::opsOfProgram(launches, q).size();
    }
    if (!covered || held != ops.size() || asLaunches >= spans[p]) {
      mixed.programs.push_back(chosen.programs[p]);
      continue;
    }
    out.replaced.push_back(p);
    lines.push_back(fmt::format("program {} ({} operators): {:.1f} us persistent, {:.1f} us as launches", p,
                                ops.size(), spans[p], asLaunches));
    for (size_t q : qs) {
      schedule::ProgramInfo info = launches.programs[q];
      info.cutReason = fmt::format("a launch per operator: predicted {:.1f} us against {:.1f} us persistent",
                                   asLaunches, spans[p]);
      mixed.programs.push_back(std::move(info));
    }
    for (int32_t op : ops) {
      schedule::PlannedOp& to = mixed.ops[static_cast<size_t>(op)];
      const schedule::PlannedOp& from = launches.ops[static_cast<size_t>(op)];
      to.kernel = from.kernel;
      to.kernelRule = from.kernelRule;
      to.options = from.options;
      to.fastestOption = from.fastestOption;
      to.mostEfficientOption = from.mostEfficientOption;
    }
  }
  if (out.replaced.empty()) return std::nullopt;
  auto mixedTrace = simulator.run(mixed);
  if (!mixedTrace || mixedTrace->totalUs >= persistent->totalUs) return std::nullopt;
  out.persistentUs = persistent->totalUs;
  out.launchesUs = base->totalUs;
  out.chosenUs = mixedTrace->totalUs;
  out.summary = fmt::format("{} of {} program(s) planned as launches ({:.1f} us predicted, {:.1f} us persistent, "
                            "{:.1f} us RammerBase)",
                            out.replaced.size(), chosen.programs.size(), out.chosenUs, out.persistentUs,
                            out.launchesUs);
  for (const std::string& l : lines) mixed.decisions.push_back("launches: " + l);
  chosen = std::move(mixed);
  return out;
}

bool weighsLaunches(schedule::PolicyId policy) {
  return policy != schedule::PolicyId::Sequential && policy != schedule::PolicyId::Dynamic &&
         !schedule::policyInfo(policy).rewritesOperators;
}

std::optional<LaunchChoice> weighLaunches(schedule::Plan& chosen, const ir::Graph& from,
                                          const device::DeviceSpec& device, std::shared_ptr<const sim::CostModel> model,
                                          const std::function<bool()>& cancelled) {
  schedule::PolicyOptions options = sim::policyOptions(model);
  options.cancelled = cancelled;
  auto launches = schedule::makePolicy(schedule::PolicyId::Sequential, std::move(options))->schedule(from, device, {});
  if (!launches) return std::nullopt;
  if (!launches->graph) launches->graph = chosen.graph;  // the same graph, fused attention or not
  return chooseLaunches(chosen, *launches, std::move(model));
}

}  // namespace rammer::pipeline
