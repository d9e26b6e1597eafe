#include "core/schedule/ios_policy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/device/occupancy.h"
#include "core/schedule/ios_search.h"
#include "core/schedule/operator_merge.h"
#include "core/schedule/plan_builder.h"
#include "core/schedule/stage_placement.h"

namespace rammer::schedule {

namespace {

ir::Result<bool> checkOptions(const IosOptions& o) {
  const PolicyOption& variant = policyOption(PolicyId::Ios, "ios-variant");
  if (!variant.accepts(o.variant))
    return ir::makeError("unknown IOS variant '" + o.variant + "'; variants: " + variant.choiceList());
  if (o.maxGroupOps < 1 || o.maxGroups < 1)
    return ir::makeError("IOS needs at least one operator per group and one group per stage (--ios-r, --ios-s)");
  if (o.blockOps < 1) return ir::makeError("IOS needs blocks of at least one operator");
  const PolicyOption& programs = policyOption(PolicyId::Ios, "ios-programs");
  if (!programs.accepts(o.programs))
    return ir::makeError("unknown IOS program layout '" + o.programs + "'; layouts: " + programs.choiceList());
  return true;
}

// A stage as the search chose it, named by graph nodes: they outlive the
// rewrite that merges operators (node ids of the other operators stay).
struct ChosenStage {
  IosStageKind kind = IosStageKind::Concurrent;
  std::vector<std::vector<ir::NodeId>> groups;  // a merge: one group, the operators merged
};

// What the search found over every block.
struct Search {
  std::vector<ChosenStage> stages;
  std::vector<std::string> lines;  // one decision per stage
  size_t states = 0, endings = 0, blocks = 0, merges = 0;
  double cost = 0;
};

// IOS prices a stage by running it; here the cost model does: the longest
// group (an operator with fewer rTasks than vEUs runs them in one round, on
// an SM it has mostly to itself) or, when the device is the limit, the
// stage's resource time over the SMs, plus what ends the stage.
class StageCost {
 public:
  StageCost(const PlanBuilder& b, const std::optional<int>& programPerSM, double boundary)
      : builder_(b), programPerSM_(programPerSM), boundary_(boundary) {}

  double operator()(const std::vector<std::vector<const kernels::RKernel*>>& groups) const {
    const device::DeviceSpec& d = builder_.device();
    const int sms = std::max(1, d.sms);
    const int perSM = programPerSM_ ? *programPerSM_ : stagePerSM(groups);
    const double veus = static_cast<double>(perSM) * sms;
    // The rTasks in flight at once: every group's widest operator, at most
    // every vEU; spread over the SMs as the vEUs are.
    double inFlight = 0;
    for (const auto& g : groups) {
      int64_t widest = 0;
      for (const kernels::RKernel* k : g) widest = std::max(widest, k->numRTasks);
      inFlight += static_cast<double>(widest);
    }
    const int busy = static_cast<int>(std::min(veus, std::max(1.0, inFlight)));
    const TaskLoad load{perSM, std::min(perSM, (busy + sms - 1) / sms), busy, 0};
    double longest = 0, total = 0;
    for (const auto& g : groups) {
      double chain = 0;
      for (const kernels::RKernel* k : g) {
        const double tasks = static_cast<double>(k->numRTasks);
        chain += std::ceil(tasks / veus) * builder_.taskTimeUnder(*k, load);
        total += tasks * builder_.taskTime(*k, perSM) / perSM;
      }
      longest = std::max(longest, chain);
    }
    return std::max(longest, total / sms) + boundary_;
  }

 private:
  // A stage's own vDevice is sized for the largest of its operators.
  int stagePerSM(const std::vector<std::vector<const kernels::RKernel*>>& groups) const {
    int threads = 1, regs = 0;
    int64_t shared = 0;
    for (const auto& g : groups)
      for (const kernels::RKernel* k : g) {
        threads = std::max(threads, k->threads());
        regs = std::max(regs, k->regsEstimate);
        shared = std::max(shared, k->sharedBytes);
      }
    return std::max(1, device::computeOccupancy(builder_.device(), {threads, regs, shared}).blocksPerSM);
  }

  const PlanBuilder& builder_;
  std::optional<int> programPerSM_;
  double boundary_;
};

// The fastest of `candidates` run alone; nullptr when none fits.
const kernels::RKernel* fastestOf(const PlanBuilder& b, const std::vector<kernels::RKernel>& candidates) {
  const kernels::RKernel* best = nullptr;
  double bestUs = 0;
  for (const kernels::RKernel& k : candidates) {
    const KernelEstimate e = b.estimate(k);
    if (e.fits && (!best || e.opUs < bestUs)) best = &k, bestUs = e.opUs;
  }
  return best;
}

std::string groupText(const PlanBuilder& b, const std::vector<std::vector<int32_t>>& groups) {
  std::string s;
  for (const auto& g : groups) {
    if (!s.empty()) s += " | ";
    for (size_t k = 0; k < g.size(); ++k) s += (k ? " -> " : "") + b.label(g[k]);
  }
  return s;
}

}  // namespace

ir::Result<Plan> IosPolicy::schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                                     const Constraints& constraints) const {
  const IosOptions& io = options().ios;
  if (auto ok = checkOptions(io); !ok) return ok.errors();
  auto started = PlanBuilder::start(name(), optimizedGraph, device, constraints, options());
  if (!started) return started.errors();
  PlanBuilder& b = *started;

  // The operators with rTasks, in topological order, with their rKernels.
  std::vector<int32_t> ops;
  std::vector<int> indexOf(b.dag().ops.size(), -1);
  for (size_t i = 0; i < b.dag().ops.size(); ++i) {
    if (b.dag().ops[i].isView) continue;
    const auto op = static_cast<int32_t>(i);
    b.choosePinnedOrFastest(op);
    indexOf[i] = static_cast<int>(ops.size());
    ops.push_back(op);
  }
  // What ends a stage: a kernel launch, or a barrier inside the one program.
  const bool perStage = io.programs == "stage";
  const double boundary = perStage ? device.launchOverheadUs : device.barrierLatencyUs;
  // In one program every stage runs at the occupancy of its vDevice, which
  // is sized for the largest operator of the model.
  std::optional<int> programPerSM;
  if (!perStage && constraints.cutBefore.empty()) {
    auto whole = b.layout(ops);
    if (!whole) return whole.errors();
    programPerSM = whole->veusPerSM;
  }
  const StageCost stageCost(b, programPerSM, boundary);
  auto kernelsOf = [&](const std::vector<std::vector<int>>& groups, size_t first) {
    std::vector<std::vector<const kernels::RKernel*>> out;
    for (const auto& g : groups) {
      auto& chain = out.emplace_back();
      for (int k : g) chain.push_back(&b.kernel(ops[first + static_cast<size_t>(k)]));
    }
    return out;
  };
  // A merge is priced on a sketch of the merged operator and its Split
  // (once per set of operators: the search asks again from other states).
  std::map<std::vector<ir::NodeId>, std::optional<double>> mergePrices;
  auto mergePrice = [&](const std::vector<int32_t>& merged) -> std::optional<double> {
    std::vector<ir::NodeId> nodes;
    for (int32_t op : merged) {
      if (b.edited(op)) return std::nullopt;  // an edit names it: keep it whole
      nodes.push_back(b.dag().ops[static_cast<size_t>(op)].node);
    }
    const ir::Node& first = optimizedGraph.node(nodes.front());
    for (ir::NodeId n : nodes)
      if (optimizedGraph.node(n).opType != first.opType || optimizedGraph.node(n).input(0) != first.input(0))
        return std::nullopt;
    auto [it, fresh] = mergePrices.try_emplace(nodes);
    if (!fresh) return it->second;
    auto sketch = sketchMerge(optimizedGraph, nodes);
    if (!sketch) return std::nullopt;
    auto wide = options().kernelSource(sketch->graph, sketch->ops.merged);
    auto split = options().kernelSource(sketch->graph, sketch->ops.split);
    if (!wide || !split) return std::nullopt;
    const kernels::RKernel* w = fastestOf(b, wide->candidates);
    const kernels::RKernel* s = fastestOf(b, split->candidates);
    if (!w || !s) return std::nullopt;
    it->second = stageCost({{w, s}});
    return it->second;
  };

  // The DP per block of consecutive operators: a block's producers outside
  // it ran in earlier blocks, so the blocks' stages concatenate.
  Search found;
  size_t blockOps = static_cast<size_t>(io.blockOps);
  for (size_t first = 0, last = 0; first < ops.size(); first = last) {
    last = std::min(ops.size(), first + blockOps);
    IosProblem p;
    p.numOps = static_cast<int>(last - first);
    p.preds.resize(static_cast<size_t>(p.numOps));
    for (size_t k = first; k < last; ++k)
      for (int32_t q : b.dag().ops[static_cast<size_t>(ops[k])].producers)
        if (const int j = indexOf[static_cast<size_t>(q)]; j >= static_cast<int>(first) && j < static_cast<int>(last))
          p.preds[k - first].push_back(j - static_cast<int>(first));
    for (auto& pr : p.preds) std::sort(pr.begin(), pr.end());
    p.maxGroupOps = io.maxGroupOps;
    p.maxGroups = io.maxGroups;
    p.allowConcurrent = io.variant != "merge";
    p.allowMerge = io.variant != "parallel";
    p.concurrentCost = [&](const std::vector<std::vector<int>>& groups) { return stageCost(kernelsOf(groups, first)); };
    p.mergeCost = [&](const std::vector<int>& set) {
      std::vector<int32_t> merged;
      for (int k : set) merged.push_back(ops[first + static_cast<size_t>(k)]);
      return mergePrice(merged);
    };
    p.maxEndings = io.maxBlockEndings;
    const IosSolution solution = solveIos(p, [&b] { return b.cancelled(); });
    if (solution.cancelled) return PlanBuilder::cancelledError();
    if (solution.overBudget) {  // too wide for the DP: search this block again as two halves
      blockOps = std::max<size_t>(1, (last - first) / 2);
      b.decide("the block from operator " + b.label(ops[first]) + " has more than " +
               std::to_string(io.maxBlockEndings) + " endings: blocks of " + std::to_string(blockOps) +
               " operators from here");
      last = first;
      continue;
    }
    ++found.blocks;
    found.states += solution.states;
    found.endings += solution.endings;
    found.cost += solution.cost;

    for (const IosStage& s : solution.stages) {
      ChosenStage& chosen = found.stages.emplace_back();
      chosen.kind = s.kind;
      std::vector<std::vector<int32_t>> named;
      for (const auto& g : s.groups) {
        auto& chain = named.emplace_back();
        auto& nodes = chosen.groups.emplace_back();
        for (int k : g) {
          chain.push_back(ops[first + static_cast<size_t>(k)]);
          nodes.push_back(b.dag().ops[static_cast<size_t>(chain.back())].node);
        }
      }
      const bool merge = s.kind == IosStageKind::Merge;
      found.merges += merge ? 1 : 0;
      std::string what;
      if (merge) {
        what = "merge";
        for (size_t k = 0; k < named[0].size(); ++k) what += (k ? " + " : " ") + b.label(named[0][k]);
        what += " (one " + optimizedGraph.node(chosen.groups[0][0]).opType + " and a Split)";
      } else {
        what = groupText(b, named) + " (" + std::to_string(s.groups.size()) + (s.groups.size() == 1 ? " group)" : " groups)");
      }
      found.lines.push_back("stage " + std::to_string(found.stages.size() - 1) + ": " + what + ": " + formatUs(s.cost) +
                            "; up to here " + formatUs(s.bestCost) +
                            (s.alternativeCost ? ", the best other last stage gives " + formatUs(*s.alternativeCost)
                                               : std::string(", the only choice")));
    }
  }

  // Merges rewrite a copy of the graph; the plan is then built on it.
  std::shared_ptr<ir::Graph> rewritten;
  std::optional<PlanBuilder> restarted;
  if (found.merges > 0) {
    rewritten = std::make_shared<ir::Graph>(optimizedGraph);
    for (ChosenStage& s : found.stages) {
      if (s.kind != IosStageKind::Merge) continue;
      auto merged = mergeOperators(*rewritten, s.groups.front());
      if (!merged) return merged.errors();
      s.groups = {{merged->merged, merged->split}};
    }
    auto again = PlanBuilder::start(name(), *rewritten, device, constraints, options());
    if (!again) return again.errors();
    restarted.emplace(std::move(again).value());
    for (size_t i = 0; i < restarted->dag().ops.size(); ++i)
      if (!restarted->dag().ops[i].isView) restarted->choosePinnedOrFastest(static_cast<int32_t>(i));
  }
  PlanBuilder& fb = restarted ? *restarted : b;
  std::map<ir::NodeId, int32_t> opOfNode;
  for (size_t i = 0; i < fb.dag().ops.size(); ++i) opOfNode[fb.dag().ops[i].node] = static_cast<int32_t>(i);

  std::vector<PlacedStage> stages;
  std::vector<ProgramDraft> drafts;
  for (const ChosenStage& s : found.stages) {
    // The stage's groups as plan operators; a group of several runs in sequence.
    PlacedStage placed;
    for (const auto& g : s.groups) {
      std::vector<int32_t> chain;
      for (ir::NodeId n : g) chain.push_back(opOfNode.at(n));
      placed.ops.insert(placed.ops.end(), chain.begin(), chain.end());
      if (chain.size() > 1) placed.chains.push_back(std::move(chain));
    }
    std::sort(placed.ops.begin(), placed.ops.end());  // producers first
    // A new program per stage, or at a cut_before edit's stage.
    const bool cut = std::any_of(placed.ops.begin(), placed.ops.end(), [&fb](int32_t op) { return fb.cutBefore(op); });
    const bool join = std::any_of(placed.ops.begin(), placed.ops.end(), [&fb](int32_t op) { return fb.noCutBefore(op); });
    if (drafts.empty() || cut || (perStage && !join)) {
      ProgramDraft d;
      d.cutReason = drafts.empty() ? "first stage"
                    : cut          ? "cut_before in stage " + std::to_string(stages.size()) + " (schedule edit)"
                                   : "IOS: one launch per stage";
      drafts.push_back(std::move(d));
    }
    placed.program = drafts.size() - 1;
    stages.push_back(std::move(placed));
  }
  fb.beginStep("the IOS search", {});
  fb.decide("ios (" + io.variant + ", r=" + std::to_string(io.maxGroupOps) + ", s=" + std::to_string(io.maxGroups) +
            ", programs: " + io.programs + "): " + std::to_string(ops.size()) + " operators in " +
            std::to_string(found.blocks) + " block(s) of up to " + std::to_string(io.blockOps) + ", " +
            std::to_string(stages.size()) + " stages (" + std::to_string(found.merges) + " merged); DP " +
            std::to_string(found.states) + " states, " + std::to_string(found.endings) + " endings; stage costs sum to " +
            formatUs(found.cost));
  // The search's lines, one per stage in order: each opens that stage's step.
  size_t stage = 0;
  for (std::string& line : found.lines) {
    if (line.rfind("stage ", 0) == 0 && stage < stages.size()) {
      fb.beginStep("stage " + std::to_string(stage), stages[stage].ops);
      ++stage;
    }
    fb.decide(std::move(line));
  }

  if (auto placed = placeStages(fb, stages, drafts); !placed) return placed.errors();
  auto plan = std::move(fb).finish(std::move(drafts));
  if (plan && rewritten) plan->graph = std::move(rewritten);
  return plan;
}

}  // namespace rammer::schedule
