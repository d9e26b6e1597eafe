#include "core/schedule/stage_placement.h"

#include <algorithm>
#include <map>
#include <set>

namespace rammer::schedule {

ir::Result<bool> placeStages(PlanBuilder& b, const std::vector<PlacedStage>& stages, std::vector<ProgramDraft>& drafts) {
  for (size_t s = 0; s < stages.size(); ++s) {
    ProgramDraft& d = drafts.at(stages[s].program);
    for (int32_t op : stages[s].ops) {
      d.ops.push_back(op);
      if (s > 0 && stages[s - 1].program == stages[s].program) d.extraDeps[op] = stages[s - 1].ops;
    }
    for (const auto& chain : stages[s].chains)
      for (size_t k = 1; k < chain.size(); ++k) d.extraDeps[chain[k]].push_back(chain[k - 1]);
  }
  b.beginStep("the rPrograms' vDevices", {});
  for (size_t p = 0; p < drafts.size(); ++p) {
    auto layout = b.layout(drafts[p].ops);
    if (!layout) return layout.errors();
    drafts[p].layout = *layout;
    b.decide("program " + std::to_string(p) + ": " + layout->summary);
  }

  // Place each stage's rTasks on the vEU that frees up first.
  const double barrier = b.device().barrierLatencyUs;
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
    // An operator of a chain starts once the one before it has ended:
    // placing it as if it could start with the stage would pile its rTasks
    // onto the few vEUs the earlier operators leave idle.
    std::map<int32_t, int32_t> after;
    for (const auto& chain : stages[s].chains)
      for (size_t k = 1; k < chain.size(); ++k) after[chain[k]] = chain[k - 1];
    std::map<int32_t, double> opEnd;
    for (int32_t op : stages[s].ops) {
      const double t = b.taskTime(b.kernel(op), d.layout.veusPerSM);
      double ready = stageStart;
      if (auto it = after.find(op); it != after.end()) ready = std::max(ready, opEnd[it->second] + barrier);
      double& doneAt = opEnd[op];
      doneAt = ready;
      for (int64_t r = 0; r < b.numRTasks(op); ++r) {
        const RTask task{op, r};
        auto pinned = b.pinnedVEU(task, d.layout.numVEUs);
        if (!pinned) return pinned.errors();
        int v = *pinned;
        if (v < 0) v = byFree.begin()->second;
        const double start = std::max(free[static_cast<size_t>(v)], ready);
        byFree.erase({std::max(free[static_cast<size_t>(v)], stageStart), v});
        free[static_cast<size_t>(v)] = start + t;
        byFree.emplace(start + t, v);
        end = std::max(end, start + t);
        doneAt = std::max(doneAt, start + t);
        d.placements.emplace_back(task, v);
      }
    }
    prevEnd = end;
  }
  return true;
}

}  // namespace rammer::schedule
