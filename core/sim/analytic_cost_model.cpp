#include "core/sim/analytic_cost_model.h"

#include <algorithm>
#include <cmath>

#include "core/kernels/kernel_efficiency.h"
#include "core/schedule/policy.h"

namespace rammer::sim {

double AnalyticCostModel::taskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                                     const TaskContext& context) const {
  const int perSM = std::max(1, context.veusPerSM);
  const int sms = std::max(1, device.sms);
  const int all = perSM * sms;
  const int onSM = context.busyOnSM > 0 ? std::min(context.busyOnSM, perSM) : perSM;
  const int running = context.busyVEUs > 0 ? std::min(context.busyVEUs, all) : all;

  // The policies' roofline (schedule::rooflineTerms), with the vEUs that
  // are running in place of all of them, and a latency bound on memory.
  const schedule::RooflineTerms t = schedule::rooflineTerms(kernel, device, onSM, running);
  const double bytes = kernel.bytesPerRTask();
  double memory = 0;
  if (bytes > 0) {
    const double perTrip = std::max(1, kernel.threads()) * std::max(1.0, options_.bytesInFlightPerThread);
    const double latencyUs = options_.memoryLatencyCycles / (std::max(0.1, device.clockGHz) * 1e3);
    memory = std::max(t.memoryUs, std::ceil(bytes / perTrip) * latencyUs);
  }
  // The family's measured (or estimated) share of this roofline on the device.
  return std::max(t.computeUs, memory) / kernels::kernelEfficiency(kernel, device);
}

}  // namespace rammer::sim
