#include "core/schedule/greedy_policy.h"

#include <algorithm>
#include <set>

#include "core/schedule/plan_builder.h"

namespace rammer::schedule {

ir::Result<Plan> GreedyPolicy::schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                                        const Constraints& constraints) const {
  auto started = PlanBuilder::start(name(), optimizedGraph, device, constraints, options());
  if (!started) return started.errors();
  PlanBuilder& b = *started;

  // Stages = the ready operators of each BFS wave; a cut_before edit splits
  // its stage and starts a new program at the marked operators.
  struct Stage {
    std::vector<int32_t> ops;
    size_t program = 0;
  };
  std::vector<Stage> stages;
  std::vector<ProgramDraft> drafts(1);
  drafts[0].cutReason = "first stage";
  const auto waves = b.dag().waves();
  for (size_t w = 0; w < waves.size(); ++w) {
    std::vector<int32_t> keep, cut;
    for (int32_t op : waves[w]) {
      b.choosePinnedOrFastest(op);
      (b.cutBefore(op) && !stages.empty() ? cut : keep).push_back(op);
    }
    if (!keep.empty()) stages.push_back(Stage{keep, drafts.size() - 1});
    if (!cut.empty()) {
      ProgramDraft d;
      d.cutReason = "cut_before '" + b.label(cut.front()) + "' (schedule edit)";
      drafts.push_back(std::move(d));
      stages.push_back(Stage{cut, drafts.size() - 1});
    }
    std::string names;
    for (int32_t op : waves[w]) names += (names.empty() ? "" : ", ") + b.label(op);
    b.decide("stage " + std::to_string(w) + ": " + names + (cut.empty() ? "" : " (split by a cut)"));
  }

  // Every operator of a stage waits for all operators of the previous stage
  // in the same program: the global barrier.
  for (size_t s = 0; s < stages.size(); ++s) {
    ProgramDraft& d = drafts[stages[s].program];
    for (int32_t op : stages[s].ops) {
      d.ops.push_back(op);
      if (s > 0 && stages[s - 1].program == stages[s].program) d.extraDeps[op] = stages[s - 1].ops;
    }
  }
  for (size_t p = 0; p < drafts.size(); ++p) {
    auto layout = b.layout(drafts[p].ops);
    if (!layout) return layout.errors();
    drafts[p].layout = *layout;
    b.decide("program " + std::to_string(p) + ": " + layout->summary);
  }

  // Place each stage's rTasks on the vEU that frees up first.
  const double barrier = device.barrierLatencyUs;
  std::vector<std::vector<double>> freeAt(drafts.size());
  for (size_t p = 0; p < drafts.size(); ++p) freeAt[p].assign(static_cast<size_t>(drafts[p].layout.numVEUs), 0.0);
  double prevEnd = 0;
  for (size_t s = 0; s < stages.size(); ++s) {
    if (b.cancelled()) return PlanBuilder::cancelledError();
    const size_t p = stages[s].program;
    ProgramDraft& d = drafts[p];
    auto& free = freeAt[p];
    const bool afterBarrier = s > 0 && stages[s - 1].program == p;
    const double stageStart = afterBarrier ? prevEnd + barrier : 0.0;
    std::set<std::pair<double, int>> byFree;
    for (size_t v = 0; v < free.size(); ++v) byFree.emplace(std::max(free[v], stageStart), static_cast<int>(v));
    double end = stageStart;
    for (int32_t op : stages[s].ops) {
      const double t = b.taskTime(b.kernel(op), d.layout.veusPerSM);
      for (int64_t r = 0; r < b.numRTasks(op); ++r) {
        const RTask task{op, r};
        auto pinned = b.pinnedVEU(task, d.layout.numVEUs);
        if (!pinned) return pinned.errors();
        int v = *pinned;
        if (v < 0) v = byFree.begin()->second;
        const double start = std::max(free[static_cast<size_t>(v)], stageStart);
        byFree.erase({start, v});
        free[static_cast<size_t>(v)] = start + t;
        byFree.emplace(start + t, v);
        end = std::max(end, start + t);
        d.placements.emplace_back(task, v);
      }
    }
    prevEnd = end;
  }
  return std::move(b).finish(std::move(drafts));
}

}  // namespace rammer::schedule
