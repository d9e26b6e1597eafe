// The labelled stand-ins for the counters, worked out by hand.
#include <gtest/gtest.h>

#include "profiler/metric_estimates.h"

namespace rammer::profiler {
namespace {

sim::TaskEvent task(int32_t program, int32_t sm, double start, double end) {
  sim::TaskEvent t;
  t.program = program;
  t.sm = sm;
  t.startUs = start;
  t.endUs = end;
  return t;
}

TEST(MetricEstimates, FromTimestampsOccupancyAndClock) {
  device::DeviceSpec d = device::presetDevice("h100").value();  // 64 warps per SM
  d.clockGHz = 2.0;
  sim::Trace t;
  // Program 1 spans [10, 20] on 2 SMs: SM 0 busy all along (two
  // overlapping rTasks), SM 1 for 5 us. Program 0's rTask is not counted.
  t.tasks = {task(1, 0, 10, 16), task(1, 0, 12, 20), task(1, 1, 10, 15), task(0, 1, 0, 100)};
  codegen::KernelLaunch l;
  l.program = 1;
  l.gridBlocks = 4;
  l.blockThreads = 200;  // 7 warps
  l.veusPerSM = 2;
  const MetricEstimates e = estimateLaunchMetrics(t, l, /*blocksPerSM=*/0, /*sms=*/2, /*kernelUs=*/12, d);
  EXPECT_DOUBLE_EQ(e.smEfficiencyPct, 75.0);  // (10 + 5) / (2 x 10)
  EXPECT_DOUBLE_EQ(e.warpActivityPct, 100.0 * 2 * 7 / 64);
  EXPECT_DOUBLE_EQ(e.smCyclesActive, 12 * 2000.0);

  // 4 vEUs over 8 SMs: half the SMs idle, 1 block on the others.
  const MetricEstimates spread = estimateLaunchMetrics(t, l, 3, 8, 12, d);
  EXPECT_DOUBLE_EQ(spread.warpActivityPct, 100.0 * 7 / 64);
  EXPECT_DOUBLE_EQ(spread.smCyclesActive, 0.5 * 12 * 2000.0);

  // An ordinary kernel with more blocks than fit: the driver's limit caps it.
  l.gridBlocks = 1000;
  l.blockThreads = 1024;  // 32 warps
  EXPECT_DOUBLE_EQ(estimateLaunchMetrics(t, l, 2, 2, 12, d).warpActivityPct, 100.0);
  l.blockThreads = 256;  // 8 warps, 3 blocks per SM
  EXPECT_DOUBLE_EQ(estimateLaunchMetrics(t, l, 3, 2, 12, d).warpActivityPct, 100.0 * 24 / 64);

  l.program = 7;  // no rTasks recorded
  EXPECT_DOUBLE_EQ(estimateLaunchMetrics(t, l, 3, 2, 12, d).smEfficiencyPct, 0.0);
}

}  // namespace
}  // namespace rammer::profiler
