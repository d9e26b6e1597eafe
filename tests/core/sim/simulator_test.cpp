// The simulator on hand-built plans with a fixed-time cost model: every
// expected time below is worked out by hand from the launch overhead L,
// barrier overhead B and the rTask times.
#include "core/sim/simulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "tests/core/sim/sim_fixtures.h"

using namespace rammer;
using namespace rammer::testing;
using schedule::Slot;

namespace {

// a_k rTasks take 2 us, b_k 3 us; L = 1 us, B = 0.5 us.
std::shared_ptr<FixedCostModel> model() {
  return std::make_shared<FixedCostModel>(std::map<std::string, double>{{"a_k", 2.0}, {"b_k", 3.0}}, 1.0, 0.5);
}

sim::Trace simulate(const schedule::Plan& plan, std::shared_ptr<FixedCostModel> m = model()) {
  auto trace = sim::Simulator(m).run(plan);
  EXPECT_TRUE(trace.ok()) << trace.errorText();
  return trace.ok() ? std::move(trace).value() : sim::Trace{};
}

std::string simulateError(const schedule::Plan& plan) {
  auto trace = sim::Simulator(model()).run(plan);
  return trace.ok() ? std::string("no error") : trace.errorText();
}

}  // namespace

TEST(SimSimulator, TwoVEUsAndABarrier) {
  // vEU 0: a[0]. vEU 1: wait for (0,0), then b[0].
  auto plan = handPlan(2, 1, {{{{exec(0, 0)}, {wait({{0, 0}}), exec(1, 0)}}}});
  const sim::Trace t = simulate(plan);
  ASSERT_EQ(t.tasks.size(), 2u);
  // a[0]: starts after the launch, L = 1, and takes 2: [1, 3].
  EXPECT_EQ(t.tasks[0].task, (schedule::RTask{0, 0}));
  EXPECT_DOUBLE_EQ(t.tasks[0].startUs, 1.0);
  EXPECT_DOUBLE_EQ(t.tasks[0].endUs, 3.0);
  // The barrier: vEU 1 arrives at 1, released at 3 + B = 3.5.
  ASSERT_EQ(t.barriers.size(), 1u);
  EXPECT_DOUBLE_EQ(t.barriers[0].startUs, 1.0);
  EXPECT_DOUBLE_EQ(t.barriers[0].endUs, 3.5);
  EXPECT_EQ(t.barriers[0].lastSlot, (Slot{0, 0}));
  EXPECT_EQ(t.barriers[0].veu, 1);
  EXPECT_EQ(t.barriers[0].order, 0);
  // b[0]: [3.5, 6.5], order 1 on vEU 1.
  EXPECT_EQ(t.tasks[1].task, (schedule::RTask{1, 0}));
  EXPECT_EQ(t.tasks[1].veu, 1);
  EXPECT_EQ(t.tasks[1].order, 1);
  EXPECT_DOUBLE_EQ(t.tasks[1].startUs, 3.5);
  EXPECT_DOUBLE_EQ(t.tasks[1].endUs, 6.5);
  EXPECT_DOUBLE_EQ(t.totalUs, 6.5);
  ASSERT_EQ(t.programs.size(), 1u);
  EXPECT_DOUBLE_EQ(t.programs[0].startUs, 0.0);
  EXPECT_DOUBLE_EQ(t.programs[0].endUs, 6.5);
  // Two SMs (vEU v on SM v % 2): SM 0 busy 2 us, SM 1 busy 3 us of 6.5.
  EXPECT_EQ(t.tasks[0].sm, 0);
  EXPECT_EQ(t.tasks[1].sm, 1);
  EXPECT_NEAR(t.smEfficiency, 5.0 / (2 * 6.5), 1e-12);
  EXPECT_DOUBLE_EQ(t.metrics.at("barrier_wait_veu_us"), 2.5);
  EXPECT_DOUBLE_EQ(t.metrics.at("launch_overhead_us"), 1.0);
}

TEST(SimSimulator, BarrierAlreadySatisfiedTakesNoTime) {
  // vEU 0: a[0] [1, 3]. vEU 1: b[0] [1, 4], then a barrier for (0,0),
  // complete since 3 + B = 3.5 < 4, then b[1] right away: [4, 7].
  auto plan = handPlan(2, 2, {{{{exec(0, 0)}, {exec(1, 0), wait({{0, 0}}), exec(1, 1)}}}});
  const sim::Trace t = simulate(plan);
  ASSERT_EQ(t.barriers.size(), 1u);
  EXPECT_DOUBLE_EQ(t.barriers[0].startUs, 4.0);
  EXPECT_DOUBLE_EQ(t.barriers[0].endUs, 4.0);
  ASSERT_EQ(t.tasks.size(), 3u);
  EXPECT_DOUBLE_EQ(t.tasks[2].startUs, 4.0);
  EXPECT_DOUBLE_EQ(t.tasks[2].endUs, 7.0);
  EXPECT_DOUBLE_EQ(t.totalUs, 7.0);
}

TEST(SimSimulator, TheLastSlotToCompleteReleasesTheBarrier) {
  // vEU 0: a[0] ends at 3; vEU 1: b[0] ends at 4; vEU 2 waits for both:
  // released at 4 + 0.5, by (1,0); then a[1] [4.5, 6.5].
  auto plan = handPlan(2, 2, {{{{exec(0, 0)}, {exec(1, 0)}, {wait({{0, 0}, {1, 0}}), exec(0, 1)}}}}, 3);
  const sim::Trace t = simulate(plan);
  ASSERT_EQ(t.barriers.size(), 1u);
  EXPECT_DOUBLE_EQ(t.barriers[0].startUs, 1.0);
  EXPECT_DOUBLE_EQ(t.barriers[0].endUs, 4.5);
  EXPECT_EQ(t.barriers[0].lastSlot, (Slot{1, 0}));
  EXPECT_DOUBLE_EQ(t.tasks.back().startUs, 4.5);
  EXPECT_DOUBLE_EQ(t.totalUs, 6.5);
}

TEST(SimSimulator, ABarrierCanWaitForAnotherBarrier) {
  // vEU 1's barrier completes at 3.5; vEU 2 waits for that slot: 3.5 + 0.5.
  auto plan = handPlan(2, 1, {{{{exec(0, 0)}, {wait({{0, 0}})}, {wait({{1, 0}}), exec(1, 0)}}}}, 3);
  const sim::Trace t = simulate(plan);
  ASSERT_EQ(t.barriers.size(), 2u);
  EXPECT_DOUBLE_EQ(t.barriers[0].endUs, 3.5);
  EXPECT_DOUBLE_EQ(t.barriers[1].endUs, 4.0);
  EXPECT_EQ(t.barriers[1].lastSlot, (Slot{1, 0}));
  EXPECT_DOUBLE_EQ(t.tasks.back().startUs, 4.0);
  EXPECT_DOUBLE_EQ(t.tasks.back().endUs, 7.0);
}

TEST(SimSimulator, ProgramsRunOneAfterAnotherWithALaunchEach) {
  // Program 0: a[0], a[1] on two vEUs, [1, 3] each, ends at 3. Program 1
  // launches at 3: b[0] [4, 7]. Program 2 has no work: just its launch.
  auto plan = handPlan(2, 2,
                       {{{{exec(0, 0)}, {exec(0, 1)}}, 1}, {{{exec(1, 0)}, {}}, 2}, {{{}, {}}, 1}});
  const sim::Trace t = simulate(plan);
  ASSERT_EQ(t.programs.size(), 3u);
  EXPECT_DOUBLE_EQ(t.programs[0].endUs, 3.0);
  EXPECT_DOUBLE_EQ(t.programs[1].startUs, 3.0);
  EXPECT_DOUBLE_EQ(t.programs[1].endUs, 7.0);
  EXPECT_EQ(t.programs[1].veusPerSM, 2);
  EXPECT_EQ(t.programs[1].numVEUs, 2);
  EXPECT_DOUBLE_EQ(t.programs[2].startUs, 7.0);
  EXPECT_DOUBLE_EQ(t.programs[2].endUs, 8.0);
  EXPECT_DOUBLE_EQ(t.totalUs, 8.0);
  ASSERT_EQ(t.tasks.size(), 3u);
  EXPECT_EQ(t.tasks[2].program, 1);
  EXPECT_DOUBLE_EQ(t.tasks[2].startUs, 4.0);
  EXPECT_DOUBLE_EQ(t.metrics.at("launch_overhead_us"), 3.0);
  // Busy SM-time: SM 0 2 + 3, SM 1 2; over 2 SMs x 8 us.
  EXPECT_NEAR(t.smEfficiency, 7.0 / 16.0, 1e-12);
}

TEST(SimSimulator, SmEfficiencyCountsOverlappingVEUsOnOneSMOnce) {
  // 2 SMs, 2 vEUs per SM: vEUs 0 and 2 share SM 0. a[0] [1, 3] on vEU 0 and
  // b[0] [1, 4] on vEU 2 overlap: SM 0 is busy [1, 4] = 3 us; SM 1 idle.
  auto plan = handPlan(2, 1, {{{{exec(0, 0)}, {}, {exec(1, 0)}, {}}, 2}});
  const sim::Trace t = simulate(plan);
  EXPECT_DOUBLE_EQ(t.totalUs, 4.0);
  EXPECT_NEAR(t.smEfficiency, 3.0 / (2 * 4.0), 1e-12);
  EXPECT_NEAR(sim::computeSmEfficiency(t.tasks, t.sms, t.totalUs), t.smEfficiency, 1e-12);
}

TEST(SimSimulator, TheModelSeesHowManyVEUsAreRunning) {
  // 2 SMs x 2 vEUs/SM, two rTasks per vEU; vEUs 0, 2 on SM 0 and 1, 3 on
  // SM 1. At 1 us they start in vEU order: (on SM, on device) = (1,1),
  // (1,2), (2,3), (2,4). At 3 us all first rTasks end before the second
  // ones start, so the counts start over.
  auto m = model();
  auto plan = handPlan(1, 8, {{{{exec(0, 0), exec(0, 4)}, {exec(0, 1), exec(0, 5)}, {exec(0, 2), exec(0, 6)},
                                {exec(0, 3), exec(0, 7)}},
                               2}});
  const sim::Trace t = simulate(plan, m);
  ASSERT_EQ(m->calls.size(), 8u);
  const int expected[8][2] = {{1, 1}, {1, 2}, {2, 3}, {2, 4}, {1, 1}, {1, 2}, {2, 3}, {2, 4}};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(m->calls[i].context.veusPerSM, 2) << i;
    EXPECT_EQ(m->calls[i].context.busyOnSM, expected[i][0]) << i;
    EXPECT_EQ(m->calls[i].context.busyVEUs, expected[i][1]) << i;
  }
  EXPECT_DOUBLE_EQ(t.totalUs, 5.0);
}

TEST(SimSimulator, AWaitCycleIsADeadlockNotAHang) {
  // Each vEU waits for the other's second slot, behind its own barrier.
  auto plan = handPlan(1, 2, {{{{wait({{1, 1}}), exec(0, 0)}, {wait({{0, 1}}), exec(0, 1)}}}});
  const std::string e = simulateError(plan);
  EXPECT_NE(e.find("program 0 deadlocks: 2 vEU(s) wait at barriers that are never released"), std::string::npos)
      << e;
  EXPECT_NE(e.find("vEU 0 order 0 waits for vEU 1 order 1"), std::string::npos) << e;
}

TEST(SimSimulator, WaitingForALaterSlotOfTheSameVEUDeadlocks) {
  auto plan = handPlan(1, 1, {{{{wait({{0, 1}}), exec(0, 0)}}}});
  const std::string e = simulateError(plan);
  EXPECT_NE(e.find("vEU 0 order 0 waits for vEU 0 order 1"), std::string::npos) << e;
}

TEST(SimSimulator, WaitingForASlotThatDoesNotExistIsAnError) {
  auto plan = handPlan(1, 1, {{{{exec(0, 0)}, {wait({{0, 5}})}}}});
  std::string e = simulateError(plan);
  EXPECT_NE(e.find("the barrier at vEU 1 order 0 waits for vEU 0 order 5, which does not exist"), std::string::npos)
      << e;
  plan = handPlan(1, 1, {{{{exec(0, 0)}, {wait({{7, 0}})}}}});
  e = simulateError(plan);
  EXPECT_NE(e.find("waits for vEU 7 order 0, which does not exist"), std::string::npos) << e;
}

TEST(SimSimulator, AnRTaskThePlanDoesNotHaveIsAnError) {
  auto plan = handPlan(1, 2, {{{{exec(0, 2)}}}});
  EXPECT_NE(simulateError(plan).find("runs op 0 rTask 2, which the plan does not have"), std::string::npos);
  plan = handPlan(1, 2, {{{{exec(3, 0)}}}});
  EXPECT_NE(simulateError(plan).find("runs op 3 rTask 0"), std::string::npos);
}

TEST(SimSimulator, AModelWithoutAValidTimeIsAnError) {
  auto bad = std::make_shared<FixedCostModel>(
      std::map<std::string, double>{{"a_k", std::numeric_limits<double>::quiet_NaN()}}, 1.0, 0.5);
  auto plan = handPlan(1, 1, {{{{exec(0, 0)}}}});
  auto t = sim::Simulator(bad).run(plan);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.errorText().find("no valid rTask time for rKernel 'a_k' of 'a'"), std::string::npos) << t.errorText();
  auto badLaunch = std::make_shared<FixedCostModel>(std::map<std::string, double>{}, -1.0, 0.5);
  EXPECT_FALSE(sim::Simulator(badLaunch).run(plan).ok());
}

TEST(SimSimulator, TheTraceDescribesThePlan) {
  auto plan = handPlan(2, 2, {{{{exec(0, 1), exec(1, 0)}, {exec(0, 0), wait({{0, 0}}), exec(1, 1)}}}});
  const sim::Trace t = simulate(plan);
  EXPECT_FALSE(t.measured);
  EXPECT_EQ(t.source, "predicted: fixed test model");
  EXPECT_EQ(t.device, "h100");
  EXPECT_EQ(t.sms, 2);
  EXPECT_EQ(t.opNames, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.kernelNames, (std::vector<std::string>{"a_k", "b_k"}));
  // Sorted by (program, vEU, start).
  ASSERT_EQ(t.tasks.size(), 4u);
  for (size_t i = 1; i < t.tasks.size(); ++i) {
    const auto& p = t.tasks[i - 1];
    const auto& q = t.tasks[i];
    EXPECT_TRUE(std::tie(p.program, p.veu, p.startUs) < std::tie(q.program, q.veu, q.startUs)) << i;
  }
  // vEU 0: a[1] [1, 3], b[0] [3, 6]. vEU 1: a[0] [1, 3], barrier for (0,0)
  // until 3.5, b[1] [3.5, 6.5].
  EXPECT_DOUBLE_EQ(t.tasks[1].startUs, 3.0);
  EXPECT_DOUBLE_EQ(t.tasks[3].startUs, 3.5);
  EXPECT_EQ(t.tasks[3].order, 2);
  EXPECT_DOUBLE_EQ(t.totalUs, 6.5);
  EXPECT_DOUBLE_EQ(t.metrics.at("rtasks"), 4);
  EXPECT_DOUBLE_EQ(t.metrics.at("barriers"), 1);
}

// Persistent cells (issue #45 item 3): an rTask of an rKernel that keeps a
// weight slice resident takes its `bytes` when its vEU holds the slice,
// and `bytes + residentReadBytes` when it must load it: the first step, or
// after another slice took the vEU's region. Times here are bytes / 1000.
namespace {
class BytesCostModel : public FixedCostModel {
 public:
  BytesCostModel() : FixedCostModel({}, 1.0, 0.5) {}
  double taskTimeUs(const kernels::RKernel& k, const device::DeviceSpec&, const sim::TaskContext&) const override {
    return k.bytes / 1000.0;
  }
};

void keepResident(schedule::PlannedOp& op, const std::string& value) {
  op.kernel.bytes = 1000;  // 1 us a step that finds its slice
  op.kernel.residentBytes = 4096;
  op.kernel.residentValue = value;
  op.kernel.residentReadBytes = 3000;  // 3 us more to load it
}
}  // namespace

TEST(SimSimulator, APersistentCellLoadsItsSliceOncePerVEU) {
  // Steps a, b, c of one layer (value "R"); vEU 0 runs rTask 0 of each, vEU 1
  // rTask 1 of a and c but rTask 0 of b (a slice it does not hold).
  auto plan = handPlan(3, 2, {{{{exec(0, 0), exec(1, 0), exec(2, 0)}, {exec(0, 1), exec(1, 1), exec(2, 1)}}}});
  for (auto& op : plan.ops) keepResident(op, "R");
  auto t = sim::Simulator(std::make_shared<BytesCostModel>()).run(plan);
  ASSERT_TRUE(t.ok()) << t.errorText();
  std::map<std::pair<int, int>, double> us;  // (vEU, order) -> rTask time
  for (const auto& e : t->tasks) us[{e.veu, e.order}] = e.endUs - e.startUs;
  EXPECT_DOUBLE_EQ(us.at({0, 0}), 4.0);  // loads slice (R, 0)
  EXPECT_DOUBLE_EQ(us.at({0, 1}), 1.0);  // finds it
  EXPECT_DOUBLE_EQ(us.at({0, 2}), 1.0);
  EXPECT_DOUBLE_EQ(us.at({1, 0}), 4.0);  // loads (R, 1)
  EXPECT_DOUBLE_EQ(us.at({1, 1}), 1.0);

  // Another layer's slice in between: the vEU reloads.
  plan = handPlan(3, 1, {{{{exec(0, 0), exec(1, 0), exec(2, 0)}}}});
  keepResident(plan.ops[0], "R");
  keepResident(plan.ops[1], "Q");
  keepResident(plan.ops[2], "R");
  t = sim::Simulator(std::make_shared<BytesCostModel>()).run(plan);
  ASSERT_TRUE(t.ok()) << t.errorText();
  for (const auto& e : t->tasks) EXPECT_DOUBLE_EQ(e.endUs - e.startUs, 4.0) << "order " << e.order;

  // The other width of the same layer (more rTasks, another layout): a reload.
  plan = handPlan(2, 1, {{{{exec(0, 0), exec(1, 0)}}}});
  for (auto& op : plan.ops) keepResident(op, "R");
  plan.ops[1].kernel.numRTasks = 4;
  t = sim::Simulator(std::make_shared<BytesCostModel>()).run(plan);
  ASSERT_TRUE(t.ok()) << t.errorText();
  for (const auto& e : t->tasks) EXPECT_DOUBLE_EQ(e.endUs - e.startUs, 4.0) << "order " << e.order;

  // A new launch starts with every region empty.
  plan = handPlan(2, 1, {{{{exec(0, 0)}}}, {{{exec(1, 0)}}}});
  for (auto& op : plan.ops) keepResident(op, "R");
  t = sim::Simulator(std::make_shared<BytesCostModel>()).run(plan);
  ASSERT_TRUE(t.ok()) << t.errorText();
  for (const auto& e : t->tasks) EXPECT_DOUBLE_EQ(e.endUs - e.startUs, 4.0) << "program " << e.program;
}
