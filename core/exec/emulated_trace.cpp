#include "core/exec/emulated_trace.h"

#include "core/sim/simulator.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace rammer::exec {

sim::Trace assembleEmulatedTrace(const schedule::Plan& plan, std::vector<WorkerEvents> workers,
                                 std::vector<sim::ProgramEvent> programs, int threads) {
  sim::Trace trace = sim::traceOf(plan, "emulated: CPU", false, plan.device.sms);
  for (WorkerEvents& w : workers) {
    trace.tasks.insert(trace.tasks.end(), w.tasks.begin(), w.tasks.end());
    trace.barriers.insert(trace.barriers.end(), w.barriers.begin(), w.barriers.end());
  }
  std::sort(trace.tasks.begin(), trace.tasks.end(), [](const sim::TaskEvent& a, const sim::TaskEvent& b) {
    return std::tie(a.program, a.veu, a.startUs, a.order) < std::tie(b.program, b.veu, b.startUs, b.order);
  });
  std::sort(trace.barriers.begin(), trace.barriers.end(), [](const sim::BarrierEvent& a, const sim::BarrierEvent& b) {
    return std::tie(a.program, a.veu, a.startUs, a.order) < std::tie(b.program, b.veu, b.startUs, b.order);
  });
  trace.programs = std::move(programs);
  trace.totalUs = trace.programs.empty() ? 0 : trace.programs.back().endUs;
  trace.smEfficiency = sim::computeSmEfficiency(trace.tasks, trace.sms, trace.totalUs);

  double taskUs = 0, waitUs = 0;
  for (const auto& t : trace.tasks) taskUs += t.endUs - t.startUs;
  for (const auto& b : trace.barriers) waitUs += b.endUs - b.startUs;
  trace.metrics["threads"] = threads;
  trace.metrics["rtasks"] = static_cast<double>(trace.tasks.size());
  trace.metrics["barriers"] = static_cast<double>(trace.barriers.size());
  trace.metrics["programs"] = static_cast<double>(trace.programs.size());
  trace.metrics["barrier_wait_us"] = waitUs;
  trace.metrics["rtask_us"] = taskUs;
  return trace;
}

}  // namespace rammer::exec
