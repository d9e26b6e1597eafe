// A measured trace becomes profile database entries: per rKernel key and
// occupancy, the rTask durations; kernel times for operators alone in a launch.
#include <gtest/gtest.h>

#include "profiler/profile_recorder.h"
#include "tests/core/sim/sim_fixtures.h"

namespace rammer::profiler {
namespace {

using testing::exec;

sim::TaskEvent task(int32_t op, int64_t r, int32_t program, double start, double end) {
  sim::TaskEvent t;
  t.task = {op, r};
  t.program = program;
  t.startUs = start;
  t.endUs = end;
  return t;
}

TEST(ProfileRecorder, PoolsRTaskTimesPerRKernelAndOccupancy) {
  // Ops a, b, c with 2 rTasks each; c uses the very rKernel a does.
  // Program 0 (2 vEUs/SM): a and b; program 1 (4 vEUs/SM): c alone.
  schedule::Plan plan = testing::handPlan(
      3, 2, {{{{exec(0, 0), exec(1, 0)}, {exec(0, 1), exec(1, 1)}}, 2}, {{{exec(2, 0)}, {exec(2, 1)}}, 4}});
  plan.ops[2].kernel = plan.ops[0].kernel;
  plan.ops[0].opType = "Gemm";
  sim::Trace t;
  t.tasks = {task(0, 0, 0, 0, 2), task(0, 1, 0, 0, 4), task(1, 0, 0, 2, 3), task(1, 1, 0, 4, 5.5),
             task(2, 0, 1, 10, 11), task(2, 1, 1, 10, 13), task(1, 1, 0, 9, 8) /* ends before it starts: skipped */};
  const std::vector<sim::TimeStats> kernelTimes = {sim::summarizeTimes({6, 7}), sim::summarizeTimes({3.5, 4.5})};

  const sim::ProfileDB db = recordTaskTimes(plan, t, kernelTimes, "Test GPU");
  EXPECT_EQ(db.device(), "h100");
  EXPECT_EQ(db.gpu(), "Test GPU");
  ASSERT_EQ(db.size(), 3u) << "a at 2 vEUs/SM, b at 2, a's rKernel (op c) at 4";

  const sim::ProfileEntry* a = db.find(sim::profileKey(plan.ops[0].kernel), 2);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->kernelName, "a_k");
  EXPECT_EQ(a->opType, "Gemm");
  EXPECT_EQ(a->numRTasks, 2);
  EXPECT_EQ(a->taskTime.samples, 2);
  EXPECT_DOUBLE_EQ(a->taskTime.medianUs, 3);
  EXPECT_DOUBLE_EQ(a->taskTime.minUs, 2);
  EXPECT_DOUBLE_EQ(a->taskTime.maxUs, 4);
  EXPECT_EQ(a->kernelTime.samples, 0) << "program 0 runs two operators";

  const sim::ProfileEntry* b = db.find(sim::profileKey(plan.ops[1].kernel), 2);
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->taskTime.medianUs, 1.25);

  const sim::ProfileEntry* c = db.find(sim::profileKey(plan.ops[0].kernel), 4);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->opType, "Relu") << "op c's type: the first operator with this key at this occupancy";
  EXPECT_DOUBLE_EQ(c->taskTime.medianUs, 2);
  EXPECT_EQ(c->kernelTime.samples, 2) << "op c ran alone in program 1";
  EXPECT_DOUBLE_EQ(c->kernelTime.medianUs, 4);
}

TEST(ProfileRecorder, IgnoresEventsOutsideThePlan) {
  schedule::Plan plan = testing::handPlan(1, 1, {{{{exec(0, 0)}}, 1}});
  sim::Trace t;
  t.tasks = {task(5, 0, 0, 0, 1), task(0, 0, 3, 0, 1), task(-1, 0, 0, 0, 1)};
  EXPECT_TRUE(recordTaskTimes(plan, t, {}, "gpu").empty());
}

}  // namespace
}  // namespace rammer::profiler
