#pragma once
// One timed plan for the policy benchmarks: the policy's scheduling time on
// this thread (CPU seconds, not disturbed by the other core) and the
// simulator's predicted latency of the plan.
#include <memory>
#include <string>

#include "core/schedule/policy.h"
#include "core/sim/simulator.h"
#include "tests/bench/bench_clock.h"

namespace rammer::bench {

struct TimedPlan {
  schedule::Plan plan;
  double cpuS = 0, predictedUs = 0;
};

inline ir::Result<TimedPlan> timedPlan(const ir::Graph& g, const std::string& policy,
                                       const schedule::PolicyOptions& options, const device::DeviceSpec& device,
                                       const sim::Simulator& simulator) {
  auto p = schedule::makePolicy(policy, options);
  if (!p) return p.errors();
  TimedPlan t;
  const double cpu = threadCpuSeconds();
  auto plan = (*p)->schedule(g, device, {});
  t.cpuS = threadCpuSeconds() - cpu;
  if (!plan) return plan.errors();
  auto trace = simulator.run(*plan);
  if (!trace) return trace.errors();
  t.predictedUs = trace->totalUs;
  t.plan = std::move(plan).value();
  return t;
}

}  // namespace rammer::bench
