// The critical path of hand-built plans with fixed times (issue #45 item
// 1): which rTasks it runs through and how its length splits into compute,
// hand-offs, queueing and launches, every figure worked out by hand from
// the launch overhead L = 1, the barrier overhead B = 0.5 and the rTask
// times (a_k 2 us, b_k 3 us, others 1 us).
#include "core/sim/critical_path.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/device/device_spec.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/cost_model.h"
#include "core/sim/measured_trace.h"
#include "core/sim/simulator.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/core/sim/sim_fixtures.h"

using namespace rammer;
using namespace rammer::testing;

namespace {

sim::Trace simulate(const schedule::Plan& plan) {
  auto m = std::make_shared<FixedCostModel>(std::map<std::string, double>{{"a_k", 2.0}, {"b_k", 3.0}}, 1.0, 0.5);
  auto trace = sim::Simulator(m).run(plan);
  EXPECT_TRUE(trace.ok()) << trace.errorText();
  return trace.ok() ? std::move(trace).value() : sim::Trace{};
}

schedule::RTask taskOf(const sim::Trace& t, const sim::CriticalLink& l) { return t.tasks.at(l.task).task; }

void expectAddsUp(const sim::CriticalPath& p) {
  EXPECT_NEAR(p.computeUs + p.handoffUs + p.queueUs + p.launchUs, p.lengthUs, 1e-9);
}

}  // namespace

TEST(CriticalPath, AHandOffIsTheBarrierBetweenAProducerAndItsConsumer) {
  // vEU 0: a[0] [1, 3]. vEU 1: wait for a[0], b[0] [3.5, 6.5].
  const auto plan = handPlan(2, 1, {{{{exec(0, 0)}, {wait({{0, 0}}), exec(1, 0)}}}});
  const sim::Trace t = simulate(plan);
  const sim::CriticalPath p = sim::criticalPath(plan, t);
  ASSERT_EQ(p.links.size(), 2u);
  EXPECT_EQ(taskOf(t, p.links[0]), (schedule::RTask{0, 0}));
  EXPECT_EQ(taskOf(t, p.links[1]), (schedule::RTask{1, 0}));
  EXPECT_DOUBLE_EQ(p.lengthUs, 6.5);
  EXPECT_DOUBLE_EQ(p.computeUs, 5.0);
  EXPECT_DOUBLE_EQ(p.handoffUs, 0.5);
  EXPECT_DOUBLE_EQ(p.launchUs, 1.0);
  EXPECT_DOUBLE_EQ(p.queueUs, 0.0);
  EXPECT_EQ(p.operators, 2u);
  EXPECT_EQ(p.handoffs, 1u);
  EXPECT_EQ(p.queued, 0u);
  expectAddsUp(p);
}

TEST(CriticalPath, AConsumerBehindOtherWorkOnItsVEUQueues) {
  // c reads a only; b is independent and runs first on c's vEU.
  // vEU 0: a[0] [1, 3]. vEU 1: b[0] [1, 4], wait for a[0] (released at 4),
  // c[0] [4, 5]: c's input was ready at 3 but its vEU was busy until 4.
  auto plan = handPlan(3, 1, {{{{exec(0, 0)}, {exec(1, 0), wait({{0, 0}}), exec(2, 0)}}}});
  plan.ops[1].producers = {};
  plan.ops[2].producers = {0};
  const sim::Trace t = simulate(plan);
  const sim::CriticalPath p = sim::criticalPath(plan, t);
  ASSERT_EQ(p.links.size(), 2u);
  EXPECT_EQ(taskOf(t, p.links[0]), (schedule::RTask{0, 0}));
  EXPECT_EQ(taskOf(t, p.links[1]), (schedule::RTask{2, 0}));
  EXPECT_DOUBLE_EQ(p.lengthUs, 5.0);
  EXPECT_DOUBLE_EQ(p.computeUs, 3.0);
  EXPECT_DOUBLE_EQ(p.queueUs, 1.0);
  EXPECT_DOUBLE_EQ(p.handoffUs, 0.0);
  EXPECT_DOUBLE_EQ(p.launchUs, 1.0);
  EXPECT_EQ(p.queued, 1u);
  expectAddsUp(p);
}

TEST(CriticalPath, AProgramBoundaryOnThePathIsALaunch) {
  // Program 0: a[0] [1, 3]; program 1 starts at 3: b[0] [4, 7].
  const auto plan = handPlan(2, 1, {{{{exec(0, 0)}}}, {{{exec(1, 0)}}}});
  const sim::Trace t = simulate(plan);
  const sim::CriticalPath p = sim::criticalPath(plan, t);
  ASSERT_EQ(p.links.size(), 2u);
  EXPECT_DOUBLE_EQ(p.lengthUs, 7.0);
  EXPECT_DOUBLE_EQ(p.computeUs, 5.0);
  EXPECT_DOUBLE_EQ(p.launchUs, 2.0);
  EXPECT_DOUBLE_EQ(p.handoffUs + p.queueUs, 0.0);
  EXPECT_EQ(p.handoffs, 0u);
  expectAddsUp(p);
}

TEST(CriticalPath, FollowsTheProducerRTaskThatFinishedLast) {
  // a has two rTasks: a[0] on vEU 0 [1, 3], a[1] on vEU 1 after a 1 us c[0]:
  // [2, 4]. b[0] waits for both on vEU 2: released at 4.5, [4.5, 7.5]. The
  // path runs through a[1], the later one, and starts there (c is not a's
  // producer): a[1] queued 1 us behind c[0] after the 1 us launch.
  auto plan = handPlan(3, 2, {{{{exec(0, 0)}, {exec(2, 0), exec(0, 1)}, {wait({{0, 0}, {1, 1}}), exec(1, 0)}}}});
  plan.ops[2].producers = {};
  const sim::Trace t = simulate(plan);
  const sim::CriticalPath p = sim::criticalPath(plan, t);
  ASSERT_EQ(p.links.size(), 2u);
  EXPECT_EQ(taskOf(t, p.links[0]), (schedule::RTask{0, 1}));
  EXPECT_EQ(taskOf(t, p.links[1]), (schedule::RTask{1, 0}));
  EXPECT_DOUBLE_EQ(p.lengthUs, 7.5);
  EXPECT_DOUBLE_EQ(p.queueUs, 1.0);   // a[1] behind c[0]
  EXPECT_DOUBLE_EQ(p.launchUs, 1.0);  // before c[0]
  EXPECT_DOUBLE_EQ(p.handoffUs, 0.5);
  expectAddsUp(p);
}

TEST(CriticalPath, AnEmptyTraceHasNoPath) {
  const auto plan = handPlan(1, 1, {});
  EXPECT_TRUE(sim::criticalPath(plan, sim::Trace{}).empty());
}

// The fifth H100 lease's lstm_tc under wavefront (tests/data/gpu_traces,
// 2026-11-27b), its operators matched by name to this build's plan: the
// figures issue #45 read off the same trace by hand (121 operators; of
// 4,491 us, 489 compute, 1,046 hand-offs, 2,873 queueing).
TEST(CriticalPath, TheFifthLeasesLstmWaitsMostlyInItsVEUsFixedOrder) {
  auto measured = sim::loadMeasuredTrace(std::filesystem::path(RAMMER_SOURCE_DIR) /
                                         "tests/data/gpu_traces/2026-11-27b-h100/runs/lstm_tc.wavefront.trace.json.xz");
  ASSERT_TRUE(measured.ok()) << measured.errorText();
  auto device = device::loadDevice("h100");
  ASSERT_TRUE(device.ok()) << device.errorText();
  const ir::Graph graph = rammer::testing::optimizedSampleGraph("lstm_tc", {.fuseEpilogues = true});
  auto plan = schedule::makePolicy("wavefront", sim::policyOptions(std::make_shared<const sim::AnalyticCostModel>()))
                  .value()
                  ->schedule(graph, *device, {});
  ASSERT_TRUE(plan.ok()) << plan.errorText();
  const sim::CriticalPath p = sim::criticalPath(*plan, *measured);
  EXPECT_EQ(p.operators, 121u);
  EXPECT_NEAR(p.lengthUs, measured->totalUs, 1.0);
  EXPECT_NEAR(p.computeUs, 489, 0.05 * 489);
  EXPECT_NEAR(p.handoffUs, 1046, 0.05 * 1046);
  EXPECT_NEAR(p.queueUs, 2873, 0.05 * 2873);
  EXPECT_NEAR(p.computeUs + p.handoffUs + p.queueUs + p.launchUs, p.lengthUs, 1.0);
}

// The hand-off quantiles (the microbenchmark's median and p99) count the
// hand-off links alone, nearest rank.
TEST(CriticalPath, HandOffQuantilesAreOverTheHandOffLinksAlone) {
  sim::CriticalPath p;
  EXPECT_EQ(p.handoffQuantileUs(0.5), 0.0);
  for (double us : {4.0, 1.0, 3.0, 2.0}) p.links.push_back(sim::CriticalLink{0, us, 0, 0, true});
  p.links.push_back(sim::CriticalLink{0, 100.0, 0, 0, false});  // a launch, not a hand-off
  EXPECT_EQ(p.handoffQuantileUs(0.5), 2.0);
  EXPECT_EQ(p.handoffQuantileUs(0.99), 4.0);
  EXPECT_EQ(p.handoffQuantileUs(0.0), 1.0);
  EXPECT_EQ(p.handoffQuantileUs(0.75), 3.0);
}

TEST(CriticalPath, TheLinksAfterAProducerInTheirProgramAreTheHandOffs) {
  const auto plan = handPlan(2, 1, {{{{exec(0, 0)}, {wait({{0, 0}}), exec(1, 0)}}}});
  const sim::CriticalPath p = sim::criticalPath(plan, simulate(plan));
  ASSERT_EQ(p.links.size(), 2u);
  EXPECT_FALSE(p.links[0].handoff);
  EXPECT_TRUE(p.links[1].handoff);
  EXPECT_DOUBLE_EQ(p.handoffQuantileUs(0.5), 0.5);
}
