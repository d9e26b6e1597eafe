#include "core/schedule/graphturbo_policy.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "core/schedule/graphturbo_grouping.h"
#include "core/schedule/plan_builder.h"

namespace rammer::schedule {

int64_t defaultGroupBudget(const device::DeviceSpec& device) {
  const int64_t quarter = device.sharedPerSM / 4 - device.sharedReservedPerBlock;
  return std::max<int64_t>(0, std::min(quarter, device.sharedPerBlockOptin));
}

namespace {

std::string kb(int64_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KB"; }

std::string ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

// Operators (non-views) breadth-first: Rammer's waves, one after another.
std::vector<int32_t> bfsOrder(const OperatorGraph& dag) {
  std::vector<int32_t> order;
  for (const auto& wave : dag.waves()) order.insert(order.end(), wave.begin(), wave.end());
  return order;
}

// Depth-first: once an operator is placed, a consumer it made ready comes
// next, so a chain runs to its end while its data is still on chip.
std::vector<int32_t> dfsOrder(const OperatorGraph& dag) {
  const size_t n = dag.ops.size();
  std::vector<size_t> waiting(n, 0);
  std::vector<int32_t> stack, order;
  for (size_t i = n; i-- > 0;) {
    waiting[i] = dag.ops[i].producers.size();
    if (!dag.ops[i].isView && waiting[i] == 0) stack.push_back(static_cast<int32_t>(i));
  }
  while (!stack.empty()) {
    const int32_t op = stack.back();
    stack.pop_back();
    order.push_back(op);
    const auto& consumers = dag.ops[static_cast<size_t>(op)].consumers;
    for (size_t k = consumers.size(); k-- > 0;)
      if (--waiting[static_cast<size_t>(consumers[k])] == 0) stack.push_back(consumers[k]);
  }
  return order;
}

struct Placed {
  std::vector<ProgramDraft> drafts;
  double predictedUs = 0;
};

// Programs in `order` (cut where an edit says), each rTask on the vEU where
// it can start first; the predicted makespan from the policy's estimates.
ir::Result<Placed> place(const PlanBuilder& b, const std::vector<int32_t>& order) {
  Placed out;
  for (int32_t op : order) {
    if (out.drafts.empty() || (b.cutBefore(op) && !out.drafts.back().ops.empty())) {
      ProgramDraft d;
      d.cutReason = out.drafts.empty() ? "first operator" : "cut_before '" + b.label(op) + "' (schedule edit)";
      out.drafts.push_back(std::move(d));
    }
    out.drafts.back().ops.push_back(op);
  }
  const double barrier = b.device().barrierLatencyUs;
  for (ProgramDraft& d : out.drafts) {
    auto layout = b.layout(d.ops);
    if (!layout) return layout.errors();
    d.layout = *layout;
    std::vector<double> free(static_cast<size_t>(layout->numVEUs), 0.0);
    std::set<std::pair<double, int>> byFree;
    for (int v = 0; v < layout->numVEUs; ++v) byFree.emplace(0.0, v);
    std::map<int32_t, double> finish;  // per placed operator
    double makespan = 0;
    for (int32_t op : d.ops) {
      double base = 0;
      for (int32_t p : b.dag().ops[static_cast<size_t>(op)].producers)
        if (auto it = finish.find(p); it != finish.end()) base = std::max(base, it->second + barrier);
      const double t = b.taskTime(b.kernel(op), layout->veusPerSM);
      double mine = 0;
      for (int64_t r = 0; r < b.numRTasks(op); ++r) {
        const RTask task{op, r};
        auto pinned = b.pinnedVEU(task, layout->numVEUs);
        if (!pinned) return pinned.errors();
        const int v = *pinned >= 0 ? *pinned : byFree.begin()->second;
        const double start = std::max(free[static_cast<size_t>(v)], base);
        byFree.erase({free[static_cast<size_t>(v)], v});
        free[static_cast<size_t>(v)] = start + t;
        byFree.emplace(start + t, v);
        mine = std::max(mine, start + t);
        d.placements.emplace_back(task, v);
      }
      finish[op] = mine;
      makespan = std::max(makespan, mine);
    }
    out.predictedUs += makespan + b.device().launchOverheadUs;
  }
  return out;
}

std::string groupLine(const ir::Graph& g, const GroupChoice& c, const std::string& order) {
  std::string names;
  for (ir::NodeId m : c.members) names += (names.empty() ? "" : ", ") + g.node(m).name;
  const ops::GroupMember& sink = c.spec.members.back();
  return "group '" + sink.name + ".group' (" + std::to_string(c.members.size()) + " operators: " + names +
         "): split along dim " + std::to_string(sink.splitDim) + " of '" + sink.name + "' (extent " +
         std::to_string(sink.shape.at(static_cast<size_t>(sink.splitDim))) + "), piece " + std::to_string(c.spec.piece) +
         "; " + std::to_string(c.instances) + " instances (the smallest count that fits is " +
         std::to_string(c.smallestFit) + "), working set " + kb(c.workingSetBytes) + ", recompute " +
         ratio(c.recompute) + ", order " + order + "; predicted " + formatUs(c.groupUs) + " vs " +
         formatUs(c.apartUs) + " apart; stopped: " + c.stop;
}

}  // namespace

ir::Result<Plan> GraphTurboPolicy::schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                                            const Constraints& constraints) const {
  const GraphTurboOptions& go = options().graphturbo;
  const PolicyOption& orders = policyOption(PolicyId::GraphTurbo, "gt-order");
  if (!orders.accepts(go.order))
    return ir::makeError("unknown GraphTurbo order '" + go.order + "'; orders: " + orders.choiceList());
  if (go.budgetBytes < 0) return ir::makeError("the GraphTurbo budget must not be negative");
  // The rewritten graph keeps every other node, its id and its inputs: its
  // candidates are the ones already fetched, not fetched twice.
  PolicyOptions cached = options();
  auto fetched = std::make_shared<std::map<ir::NodeId, kernels::OperatorKernels>>();
  cached.kernelSource = [source = options().kernelSource, fetched, original = &optimizedGraph](
                            const ir::Graph& g, ir::NodeId n) -> ir::Result<kernels::OperatorKernels> {
    if (&g != original) {
      auto it = fetched->find(n);
      if (it != fetched->end() && g.node(n).opType != "FusedGroup") return it->second;
      return source(g, n);
    }
    auto k = source(g, n);
    if (k) fetched->emplace(n, *k);
    return k;
  };
  auto started = PlanBuilder::start(name(), optimizedGraph, device, constraints, cached);
  if (!started) return started.errors();
  PlanBuilder& b = *started;

  // Grouping, priced with the operators' fastest rKernels.
  std::map<ir::NodeId, int32_t> opOfNode;
  for (size_t i = 0; i < b.dag().ops.size(); ++i) opOfNode[b.dag().ops[i].node] = static_cast<int32_t>(i);
  GroupingOptions gopts;
  gopts.budgetBytes = go.budgetBytes > 0 ? go.budgetBytes : defaultGroupBudget(device);
  gopts.opset = optimizedGraph.opsetVersion;
  gopts.excluded = [&](ir::NodeId n) {
    auto it = opOfNode.find(n);
    return it == opOfNode.end() || b.dag().ops[static_cast<size_t>(it->second)].isView || b.edited(it->second);
  };
  gopts.soloUs = [&](ir::NodeId n) {
    const int32_t op = opOfNode.at(n);
    const int pinned = b.pinnedKernel(op);
    return b.estimate(b.candidates(op)[pinned >= 0 ? static_cast<size_t>(pinned) : b.fastest(op)]).opUs;
  };
  gopts.kernelUs = [&](const kernels::RKernel& k) { return b.estimate(k).opUs; };
  if (b.cancelled()) return PlanBuilder::cancelledError();
  const Grouping grouping = findGroups(optimizedGraph, gopts);
  if (b.cancelled()) return PlanBuilder::cancelledError();

  std::shared_ptr<ir::Graph> rewritten;
  std::optional<PlanBuilder> restarted;
  if (!grouping.groups.empty()) {
    auto applied = applyGroups(optimizedGraph, grouping);
    if (!applied) return applied.errors();
    rewritten = std::make_shared<ir::Graph>(std::move(applied).value());
    auto again = PlanBuilder::start(name(), *rewritten, device, constraints, cached);
    if (!again) return again.errors();
    restarted.emplace(std::move(again).value());
  }
  PlanBuilder& fb = restarted ? *restarted : b;
  for (size_t i = 0; i < fb.dag().ops.size(); ++i)
    if (!fb.dag().ops[i].isView) fb.choosePinnedOrFastest(static_cast<int32_t>(i));

  std::optional<Placed> chosen;
  std::string order = go.order, orderWhy;
  if (go.order == "auto") {
    auto bfs = place(fb, bfsOrder(fb.dag()));
    if (!bfs) return bfs.errors();
    auto dfs = place(fb, dfsOrder(fb.dag()));
    if (!dfs) return dfs.errors();
    order = dfs->predictedUs < bfs->predictedUs ? "dfs" : "bfs";
    orderWhy = " (auto: bfs " + formatUs(bfs->predictedUs) + ", dfs " + formatUs(dfs->predictedUs) + ")";
    chosen = order == "dfs" ? std::move(*dfs) : std::move(*bfs);
  } else {
    auto placed = place(fb, go.order == "dfs" ? dfsOrder(fb.dag()) : bfsOrder(fb.dag()));
    if (!placed) return placed.errors();
    chosen = std::move(*placed);
  }

  size_t grouped = 0;
  int64_t instances = 0;
  for (const GroupChoice& c : grouping.groups) {
    grouped += c.members.size();
    instances += c.instances;
  }
  fb.beginStep("the GraphTurbo grouping", {});
  fb.decide("graphturbo (budget " + kb(gopts.budgetBytes) + " per instance, order " + order + orderWhy + "): " +
            std::to_string(grouping.groups.size()) + " groups of " + std::to_string(grouped) + " operators, " +
            std::to_string(instances) + " instances; " + std::to_string(grouping.alone.size()) +
            " operators alone; predicted " + formatUs(chosen->predictedUs));
  std::map<std::string, int32_t> opNamed;
  std::set<int32_t> inGroups;
  for (size_t i = 0; i < fb.dag().ops.size(); ++i) opNamed[fb.opName(static_cast<int32_t>(i))] = static_cast<int32_t>(i);
  for (const GroupChoice& c : grouping.groups) {
    const std::string group = c.spec.members.back().name + ".group";
    std::vector<int32_t> ops;
    if (auto it = opNamed.find(group); it != opNamed.end()) ops.push_back(it->second);
    inGroups.insert(ops.begin(), ops.end());
    fb.beginStep("group '" + group + "'", std::move(ops));
    fb.decide(groupLine(optimizedGraph, c, order));
  }
  std::vector<int32_t> alone;
  for (size_t i = 0; i < fb.dag().ops.size(); ++i)
    if (!fb.dag().ops[i].isView && !inGroups.count(static_cast<int32_t>(i))) alone.push_back(static_cast<int32_t>(i));
  fb.beginStep("operators alone", std::move(alone));
  for (const std::string& line : grouping.alone) fb.decide(line);
  fb.beginStep("the rPrograms' vDevices", {});
  for (size_t p = 0; p < chosen->drafts.size(); ++p)
    fb.decide("program " + std::to_string(p) + ": " + chosen->drafts[p].layout.summary);

  auto plan = std::move(fb).finish(std::move(chosen->drafts));
  if (plan && rewritten) plan->graph = std::move(rewritten);
  return plan;
}

}  // namespace rammer::schedule
