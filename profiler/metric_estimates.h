#pragma once
// Stand-ins for the three hardware counters when CUPTI cannot read them,
// worked out from what was measured without counters. They are labelled
// estimates wherever they are shown:
//  - SM efficiency: per SM, the union of its rTask intervals in the
//    launch, over SMs x the launch's span (rTask timestamps). Barrier waits
//    count as idle here, while the counter sees a spinning warp as active.
//  - warp activity: warps of the resident blocks per SM that has any, over
//    the SM's maximum (occupancy; persistent blocks stay resident all along).
//  - active cycles: the kernel time x clock, averaged over all SMs (SMs
//    without a block count zero).
#include <cstdint>

#include "core/codegen/generated_program.h"
#include "core/device/device_spec.h"
#include "core/sim/trace.h"

namespace rammer::profiler {

struct MetricEstimates {
  double smEfficiencyPct = 0;
  double warpActivityPct = 0;
  double smCyclesActive = 0;
};

// `blocksPerSM`: the driver's occupancy for the launch's kernel (0: use the
// plan's vEUs per SM); `sms`: the GPU's SMs; `kernelUs`: the launch's time
// (CUPTI, else its rTask span); `device` gives warp limits and the clock.
MetricEstimates estimateLaunchMetrics(const sim::Trace& measured, const codegen::KernelLaunch& launch,
                                      int blocksPerSM, int sms, double kernelUs, const device::DeviceSpec& device);

}  // namespace rammer::profiler
