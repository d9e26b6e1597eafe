#include "profiler/metric_estimates.h"

#include <algorithm>
#include <vector>

#include "core/sim/simulator.h"

namespace rammer::profiler {

MetricEstimates estimateLaunchMetrics(const sim::Trace& measured, const codegen::KernelLaunch& launch,
                                      int blocksPerSM, int sms, double kernelUs, const device::DeviceSpec& device) {
  MetricEstimates e;
  sms = std::max(1, sms);
  std::vector<sim::TaskEvent> tasks;
  double start = 0, end = 0;
  for (const sim::TaskEvent& t : measured.tasks) {
    if (t.program != launch.program) continue;
    start = tasks.empty() ? t.startUs : std::min(start, t.startUs);
    end = tasks.empty() ? t.endUs : std::max(end, t.endUs);
    tasks.push_back(t);
  }
  if (!tasks.empty()) e.smEfficiencyPct = 100.0 * sim::computeSmEfficiency(tasks, sms, end - start);

  const int grid = std::max(0, launch.gridBlocks);
  if (grid > 0) {
    const int activeSMs = std::min(grid, sms);
    const int perSMLimit = blocksPerSM > 0 ? blocksPerSM : std::max(1, launch.veusPerSM);
    const double blocks = std::min(static_cast<double>(grid) / activeSMs, static_cast<double>(perSMLimit));
    const int warpSize = std::max(1, device.warpSize);
    const int warpsPerBlock = (std::max(1, launch.blockThreads) + warpSize - 1) / warpSize;
    const double maxWarps = std::max(1, device.maxWarpsPerSM());
    e.warpActivityPct = std::min(100.0, 100.0 * blocks * warpsPerBlock / maxWarps);
    e.smCyclesActive = static_cast<double>(activeSMs) / sms * std::max(0.0, kernelUs) * device.clockGHz * 1e3;
  }
  return e;
}

}  // namespace rammer::profiler
