#include "core/sim/plan_figures.h"

#include <algorithm>
#include <variant>

namespace rammer::sim {

namespace {
double metric(const Trace& t, const char* name) {
  auto it = t.metrics.find(name);
  return it == t.metrics.end() ? 0.0 : it->second;
}
}  // namespace

PlanFigures figuresOf(const schedule::Plan& plan, const Trace* predicted) {
  PlanFigures f;
  f.programs = plan.programs.size();
  f.minVEUsPerSM = plan.programs.empty() ? 0 : plan.programs.front().veusPerSM;
  for (const auto& p : plan.programs) {
    f.rtasks += p.numRTasks();
    f.barriers += p.program.numBarriers();
    f.maxVEUs = std::max(f.maxVEUs, p.program.numVEUs());
    f.maxVEUsPerSM = std::max(f.maxVEUsPerSM, p.veusPerSM);
    f.minVEUsPerSM = std::min(f.minVEUsPerSM, p.veusPerSM);
  }
  for (const auto& op : plan.ops)
    if (!op.isView) f.dramBytes += op.kernel.dramBytes();
  if (predicted) {
    f.predictedUs = predicted->totalUs;
    f.smEfficiency = predicted->smEfficiency;
    f.launchOverheadUs = metric(*predicted, "launch_overhead_us");
    f.barrierWaitVeuUs = metric(*predicted, "barrier_wait_veu_us");
  }
  return f;
}

std::vector<int> programOfOps(const schedule::Plan& plan) {
  std::vector<int> of(plan.ops.size(), -1);
  for (size_t p = 0; p < plan.programs.size(); ++p)
    for (int32_t op : schedule::opsOfProgram(plan, p))
      if (of[static_cast<size_t>(op)] < 0) of[static_cast<size_t>(op)] = static_cast<int>(p);
  return of;
}

}  // namespace rammer::sim
