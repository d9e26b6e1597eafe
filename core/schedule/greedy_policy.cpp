#include "core/schedule/greedy_policy.h"

#include "core/schedule/plan_builder.h"
#include "core/schedule/stage_placement.h"

namespace rammer::schedule {

ir::Result<Plan> GreedyPolicy::schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                                        const Constraints& constraints) const {
  auto started = PlanBuilder::start(name(), optimizedGraph, device, constraints, options());
  if (!started) return started.errors();
  PlanBuilder& b = *started;

  // Stages = the ready operators of each BFS wave; a cut_before edit splits
  // its stage and starts a new program at the marked operators.
  std::vector<PlacedStage> stages;
  std::vector<ProgramDraft> drafts(1);
  drafts[0].cutReason = "first stage";
  const auto waves = b.dag().waves();
  for (size_t w = 0; w < waves.size(); ++w) {
    b.beginStep("stage " + std::to_string(w), waves[w]);
    std::vector<int32_t> keep, cut;
    for (int32_t op : waves[w]) {
      b.choosePinnedOrFastest(op);
      (b.cutBefore(op) && !stages.empty() ? cut : keep).push_back(op);
    }
    if (!keep.empty()) stages.push_back(PlacedStage{keep, drafts.size() - 1, {}});
    if (!cut.empty()) {
      ProgramDraft d;
      d.cutReason = "cut_before '" + b.label(cut.front()) + "' (schedule edit)";
      drafts.push_back(std::move(d));
      stages.push_back(PlacedStage{cut, drafts.size() - 1, {}});
    }
    std::string names;
    for (int32_t op : waves[w]) names += (names.empty() ? "" : ", ") + b.label(op);
    b.decide("stage " + std::to_string(w) + ": " + names + (cut.empty() ? "" : " (split by a cut)"));
  }

  if (auto placed = placeStages(b, stages, drafts); !placed) return placed.errors();
  return std::move(b).finish(std::move(drafts));
}

}  // namespace rammer::schedule
