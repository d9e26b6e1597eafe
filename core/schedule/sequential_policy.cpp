#include "core/schedule/sequential_policy.h"

#include "core/schedule/plan_builder.h"

namespace rammer::schedule {

ir::Result<Plan> SequentialPolicy::schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                                            const Constraints& constraints) const {
  auto started = PlanBuilder::start(name(), optimizedGraph, device, constraints, options());
  if (!started) return started.errors();
  PlanBuilder& b = *started;

  // One program per operator, unless an edit merges it into the previous one.
  std::vector<ProgramDraft> drafts;
  for (size_t i = 0; i < b.dag().ops.size(); ++i) {
    const auto op = static_cast<int32_t>(i);
    if (b.cancelled()) return PlanBuilder::cancelledError();
    if (b.dag().ops[i].isView) continue;
    b.beginStep("operator '" + b.label(op) + "'", {op});
    b.choosePinnedOrFastest(op);
    if (!drafts.empty() && b.noCutBefore(op)) {
      b.decide("'" + b.label(op) + "' joins the program of '" + b.label(drafts.back().ops.back()) +
               "' (merge_before edit)");
      drafts.back().ops.push_back(op);
      continue;
    }
    ProgramDraft d;
    d.ops.push_back(op);
    d.cutReason = drafts.empty()      ? "first operator"
                  : b.cutBefore(op)   ? "cut_before '" + b.label(op) + "' (schedule edit)"
                                      : "RammerBase: one program per operator";
    drafts.push_back(std::move(d));
  }

  b.beginStep("the rPrograms' vDevices", {});
  for (size_t p = 0; p < drafts.size(); ++p) {
    ProgramDraft& d = drafts[p];
    auto layout = b.layout(d.ops);
    if (!layout) return layout.errors();
    d.layout = *layout;
    b.decide("program " + std::to_string(p) + ": " + layout->summary);
    // Round-robin, continuing across the operators of a merged program.
    int64_t next = 0;
    for (int32_t op : d.ops) {
      for (int64_t r = 0; r < b.numRTasks(op); ++r) {
        const RTask t{op, r};
        auto pinned = b.pinnedVEU(t, layout->numVEUs);
        if (!pinned) return pinned.errors();
        const int v = *pinned >= 0 ? *pinned : static_cast<int>(next++ % layout->numVEUs);
        d.placements.emplace_back(t, v);
      }
    }
  }
  return std::move(b).finish(std::move(drafts));
}

}  // namespace rammer::schedule
