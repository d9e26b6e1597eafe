#include "core/schedule/dynamic_policy.h"

#include "core/schedule/plan_builder.h"

namespace rammer::schedule {

ir::Result<Plan> DynamicPolicy::schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                                         const Constraints& constraints) const {
  auto started = PlanBuilder::start(name(), optimizedGraph, device, constraints, options());
  if (!started) return started.errors();
  PlanBuilder& b = *started;

  // Algorithm 1's rule on Rammer's waves: where the fastest rKernels of a
  // wave's operators have more rTasks than the device has vEUs, the most
  // efficient ones are weighed against them, as the wavefront policy
  // weighs its two schedules: the queue keeps every vEU busy, so a wave
  // takes about its rTasks' vEU-time over the vEUs, and at least its
  // longest rTask; the set with less wins.
  std::vector<char> efficient(b.dag().ops.size(), 0);
  for (const std::vector<int32_t>& wave : b.dag().waves()) {
    int64_t tasks = 0;
    int veus = 1;
    double work[2] = {0, 0}, longest[2] = {0, 0};
    for (int32_t op : wave) {
      const int shape = b.pinnedShape(op);
      const size_t pick[2] = {b.fastest(op, shape), b.mostEfficient(op, shape)};
      for (int s = 0; s < 2; ++s) {
        const kernels::RKernel& k = b.candidates(op)[pick[s]];
        const KernelEstimate e = b.estimate(k, shape);
        work[s] += static_cast<double>(k.numRTasks) * e.taskUs;
        longest[s] = std::max(longest[s], e.taskUs);
        if (s == 0) tasks += k.numRTasks, veus = std::max(veus, e.numVEUs);
      }
    }
    const bool pickEfficient =
        tasks > veus && std::max(longest[1], work[1] / veus) < std::max(longest[0], work[0] / veus);
    for (int32_t op : wave) efficient[static_cast<size_t>(op)] = pickEfficient;
  }

  // The vEUs per SM a schedule edit pins any of `ops` to; 0: none.
  auto pinnedShapeOf = [&](const std::vector<int32_t>& ops) {
    for (int32_t o : ops)
      if (b.pinnedShape(o) > 0) return b.pinnedShape(o);
    return 0;
  };
  std::vector<ProgramDraft> drafts;
  for (size_t i = 0; i < b.dag().ops.size(); ++i) {
    const auto op = static_cast<int32_t>(i);
    if (b.cancelled()) return PlanBuilder::cancelledError();
    if (b.dag().ops[i].isView) continue;
    b.beginStep("operator '" + b.label(op) + "'", {op});
    const int shape = b.pinnedShape(op);
    if (const int pinned = b.pinnedKernel(op); pinned >= 0) {
      b.choose(op, static_cast<size_t>(pinned), "pinned", "schedule edit");
    } else {
      const bool fills = efficient[i];
      b.choose(op, fills ? b.mostEfficient(op, shape) : b.fastest(op, shape), fills ? "most efficient" : "fastest",
               fills ? "its wave's fastest rKernels oversubscribe the vEUs and the efficient ones finish first"
                     : "its wave's fastest rKernels fit the vEUs or finish first");
    }
    // The program goes on while its vDevice holds every rKernel in it.
    std::string cut = drafts.empty()    ? "first operator"
                      : b.cutBefore(op) ? "cut_before '" + b.label(op) + "' (schedule edit)"
                                        : "";
    // No vEU owns an rTask in advance, so the vDevice may shrink to the
    // vEUs per SM every rKernel of the program fits; a cut only where none does.
    if (cut.empty() && !b.noCutBefore(op)) {
      std::vector<int32_t> with = drafts.back().ops;
      with.push_back(op);
      if (auto l = b.layout(with, pinnedShapeOf(with), kDispatchSlotBytes); !l)
        cut = "no vDevice holds '" + b.label(op) + "''s rKernel with the program's";
    }
    if (!cut.empty()) {
      ProgramDraft d;
      d.cutReason = cut;
      auto l = b.layout({op}, shape, kDispatchSlotBytes);
      if (!l) return l.errors();
      d.layout = *l;
      d.ops.push_back(op);
      drafts.push_back(std::move(d));
      b.decide("'" + b.label(op) + "' starts program " + std::to_string(drafts.size() - 1) + " (" + cut + ")");
      continue;
    }
    ProgramDraft& d = drafts.back();
    d.ops.push_back(op);
    auto l = b.layout(d.ops, pinnedShapeOf(d.ops), kDispatchSlotBytes);
    if (!l) return l.errors();
    d.layout = *l;
  }
  b.beginStep("the rPrograms' vDevices", {});
  for (size_t p = 0; p < drafts.size(); ++p)
    b.decide("program " + std::to_string(p) + ": " + drafts[p].layout.summary + ", " +
             std::to_string(drafts[p].ops.size()) + " operators in a ready queue");
  return std::move(b).finishDynamic(std::move(drafts));
}

}  // namespace rammer::schedule
