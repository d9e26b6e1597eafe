// The analytic cost model against numbers worked out by hand from the H100
// preset: 132 SMs, 4 x 32 lanes per SM, 66.9 TFLOP/s FP32, 3350 GB/s,
// 1.98 GHz, launch 2.5 us, barrier 0.6 us.
#include "core/sim/analytic_cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/device/device_spec.h"
#include "core/schedule/policy.h"
#include "tests/core/schedule/schedule_fixtures.h"

using namespace rammer;
using rammer::testing::fakeKernel;

namespace {

device::DeviceSpec h100() { return device::presetDevice("h100").value(); }

// One rTask: `flops` FLOPs, `bytes` bytes, `threads` threads.
kernels::RKernel task(double flops, double bytes, int threads = 256) {
  return fakeKernel("k", 1, flops, threads, 0, bytes);
}

}  // namespace

TEST(SimAnalyticModel, ComputeBoundOnABusyDevice) {
  // 8 vEUs/SM: a vEU gets 1/8 of an SM's 66.9e6 / 132 FLOP/us.
  const double us = sim::AnalyticCostModel().taskTimeUs(task(1e6, 0), h100(), {8, 0, 0});
  EXPECT_NEAR(us, 1e6 / (66.9e6 / 132 / 8), 1e-9);  // 15.785 us
  EXPECT_NEAR(us, 15.7848, 1e-3);
}

TEST(SimAnalyticModel, MemoryBoundOnABusyDevice) {
  // 1056 vEUs share 3350e3 B/us: 32768 B take 32768 * 1056 / 3.35e6 us.
  const double us = sim::AnalyticCostModel().taskTimeUs(task(0, 32768), h100(), {8, 0, 0});
  EXPECT_NEAR(us, 10.3292, 1e-3);
}

// Re-reads that hit L2 move at the L2 bandwidth (7000 GB/s on the preset),
// the rest at DRAM's: the same bytes with half of them in L2 take
// 16384 * 1056 / 3.35e6 + 16384 * 1056 / 7e6 us; the policies' roofline
// charges the same split.
TEST(SimAnalyticModel, L2ReReadsAreChargedAtTheL2Bandwidth) {
  kernels::RKernel k = task(0, 32768);
  k.l2Bytes = 16384;
  const double us = sim::AnalyticCostModel().taskTimeUs(k, h100(), {8, 0, 0});
  EXPECT_NEAR(us, 16384.0 * 1056 / 3.35e6 + 16384.0 * 1056 / 7e6, 1e-9);
  EXPECT_LT(us, sim::AnalyticCostModel().taskTimeUs(task(0, 32768), h100(), {8, 0, 0}));
  EXPECT_NEAR(schedule::estimateTaskTimeUs(k, h100(), 8), us, 1e-9);
  // A device without an L2 bandwidth charges everything at DRAM's.
  device::DeviceSpec d = h100();
  d.l2BandwidthGBs = 0;
  EXPECT_NEAR(sim::AnalyticCostModel().taskTimeUs(k, d, {8, 0, 0}), 10.3292, 1e-3);
}

TEST(SimAnalyticModel, ABusyDeviceIsThePoliciesRooflineUnlessLatencyBound) {
  const auto d = h100();
  const sim::AnalyticCostModel m;
  // Round trips of 256 threads x 16 B = 4 KB per 0.303 us do not limit these
  // at 2 or more vEUs per SM (the bandwidth share is smaller): the roofline.
  for (int perSM : {2, 4, 8})
    for (const auto& [flops, bytes] : {std::pair{1e6, 0.0}, {0.0, 65536.0}, {2e5, 65536.0}, {3e7, 1e5}}) {
      const auto k = task(flops, bytes, 256);
      const double policy = schedule::estimateTaskTimeUs(k, d, perSM);
      EXPECT_NEAR(m.taskTimeUs(k, d, {perSM, 0, 0}), policy, 1e-9 * policy) << perSM << " " << flops << " " << bytes;
      // Naming every vEU busy explicitly is the same.
      EXPECT_EQ(m.taskTimeUs(k, d, {perSM, perSM, perSM * d.sms}), m.taskTimeUs(k, d, {perSM, 0, 0}));
    }
  // 100 B: the roofline says 100 * 1056 / 3.35e6 = 0.0315 us at 8 vEUs/SM,
  // but a load takes a round trip of 600 cycles at 1.98 GHz.
  EXPECT_NEAR(schedule::estimateTaskTimeUs(task(0, 100), d, 8), 100.0 * 1056 / 3.35e6, 1e-12);
  EXPECT_NEAR(m.taskTimeUs(task(0, 100), d, {8, 0, 0}), 600 / 1980.0, 1e-12);
  // 64 threads move 1 KB per round trip: 64 KB take 64 trips (19.39 us),
  // more than the 4 vEUs/SM bandwidth share (65536 * 528 / 3.35e6 = 10.33 us).
  EXPECT_NEAR(m.taskTimeUs(task(0, 65536, 64), d, {4, 0, 0}), 64 * 600 / 1980.0, 1e-9);
  EXPECT_NEAR(schedule::estimateTaskTimeUs(task(0, 65536, 64), d, 4), 65536.0 * 528 / 3.35e6, 1e-9);
}

TEST(SimAnalyticModel, FewerRunningVEUsAreNeverSlower) {
  const auto d = h100();
  const sim::AnalyticCostModel m;
  for (int threads : {32, 64, 256, 1024})
    for (const auto& [flops, bytes] : {std::pair{1e6, 0.0}, {0.0, 4096.0}, {2e5, 65536.0}, {3e7, 1e5}}) {
      const auto k = task(flops, bytes, threads);
      double previous = 0;
      for (int running : {1, 8, 132, 264, 528, 1056}) {
        const int onSM = std::min(8, (running + 131) / 132);
        const double us = m.taskTimeUs(k, d, {8, onSM, running});
        EXPECT_GE(us, previous - 1e-12) << threads << " threads, " << running << " running";
        previous = us;
      }
      EXPECT_EQ(previous, m.taskTimeUs(k, d, {8, 0, 0}));
    }
}

TEST(SimAnalyticModel, AVEUAloneOnItsSMGetsTheWholeSM) {
  // 256 threads cover all 128 lanes: the whole SM, 66.9e6 / 132 FLOP/us.
  const sim::AnalyticCostModel m;
  EXPECT_NEAR(m.taskTimeUs(task(1e6, 0), h100(), {8, 1, 1}), 1e6 / (66.9e6 / 132), 1e-9);  // 1.973 us
  // Three vEUs on the SM: a third each.
  EXPECT_NEAR(m.taskTimeUs(task(1e6, 0), h100(), {8, 3, 300}), 3e6 / (66.9e6 / 132), 1e-9);
  // 64 threads issue on at most half of the lanes.
  EXPECT_NEAR(m.taskTimeUs(task(1e6, 0, 64), h100(), {8, 1, 1}), 2e6 / (66.9e6 / 132), 1e-9);
}

TEST(SimAnalyticModel, ALoneVEUIsLimitedByWhatItsThreadsKeepInFlight) {
  // 8 busy vEUs share 3350 GB/s (32768 B in 0.078 us), but 256 threads
  // x 16 B move 4096 B per 600-cycle round trip (0.30303 us at 1.98 GHz):
  // 8 round trips = 2.4242 us.
  const sim::AnalyticCostModel m;
  EXPECT_NEAR(m.taskTimeUs(task(0, 32768), h100(), {8, 1, 8}), 8 * 600 / 1980.0, 1e-9);
  // A partial round trip still costs a whole one: 5000 B take 2 (0.606 us),
  // 100 B one.
  EXPECT_NEAR(m.taskTimeUs(task(0, 5000), h100(), {8, 1, 1}), 2 * 600 / 1980.0, 1e-9);
  EXPECT_NEAR(m.taskTimeUs(task(0, 100), h100(), {8, 1, 1}), 600 / 1980.0, 1e-9);
  // Half of the device busy: 528 vEUs share the bandwidth, 32768 * 528 /
  // 3.35e6 = 5.165 us, slower than the 2.42 us of round trips.
  EXPECT_NEAR(m.taskTimeUs(task(0, 32768), h100(), {8, 4, 528}), 32768.0 * 528 / 3.35e6, 1e-9);
  // Other constants are options.
  sim::AnalyticModelOptions o;
  o.memoryLatencyCycles = 1980;  // 1 us
  o.bytesInFlightPerThread = 32;  // 8192 B per round trip
  EXPECT_NEAR(sim::AnalyticCostModel(o).taskTimeUs(task(0, 32768), h100(), {8, 1, 8}), 4.0, 1e-9);
}

TEST(SimAnalyticModel, OverheadsAreTheDevicesAndPoliciesCanUseTheModel) {
  const auto d = h100();
  auto m = std::make_shared<sim::AnalyticCostModel>();
  EXPECT_DOUBLE_EQ(m->launchOverheadUs(d), 2.5);
  EXPECT_DOUBLE_EQ(m->barrierOverheadUs(d), 0.6);
  const auto k = task(1e6, 32768);
  EXPECT_EQ(sim::taskTimeFn(m)(k, d, 4), m->taskTimeUs(k, d, {4, 0, 0}));
  const schedule::PolicyOptions o = sim::policyOptions(m);
  ASSERT_TRUE(o.taskTime);
  ASSERT_TRUE(o.kernelSource);
  EXPECT_EQ(o.taskTime(k, d, 2), m->taskTimeUs(k, d, {2, 0, 0}));
}

// A family's efficiency on the device divides both rooflines' time: the
// simulator's and the policies'.
TEST(SimAnalyticModel, TheFamilysEfficiencyStretchesItsRTasks) {
  device::DeviceSpec d = h100();
  kernels::RKernel k = task(1e6, 32768);
  d.kernelEfficiency.clear();
  const double atRoofline = sim::AnalyticCostModel().taskTimeUs(k, d, {8, 0, 0});
  const double policyAtRoofline = schedule::estimateTaskTimeUs(k, d, 8);
  k.family = "elementwise";
  d.kernelEfficiency["elementwise"] = 0.25;
  EXPECT_NEAR(sim::AnalyticCostModel().taskTimeUs(k, d, {8, 0, 0}), 4 * atRoofline, 1e-9);
  EXPECT_NEAR(schedule::estimateTaskTimeUs(k, d, 8), 4 * policyAtRoofline, 1e-9);
  k.family = "gemm";  // not listed: at the roofline
  EXPECT_NEAR(sim::AnalyticCostModel().taskTimeUs(k, d, {8, 0, 0}), atRoofline, 1e-9);
}
