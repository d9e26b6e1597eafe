// figuresOf's DRAM traffic: the chosen rKernels' bytes less their L2
// re-reads, views excluded, read off the plan alone, so it depends on the
// rKernels (a fused group's among them) and not on how the policy ordered
// their rTasks.
#include "core/sim/plan_figures.h"

#include <gtest/gtest.h>

#include "core/schedule/policy.h"
#include "tests/core/schedule/schedule_fixtures.h"
#include "tests/core/sim/sim_fixtures.h"

using namespace rammer;
namespace rt = rammer::testing;

TEST(PlanFigures, DramBytesAreTheKernelsBytesWithoutViews) {
  schedule::Plan plan = rt::handPlan(3, 2, {});
  plan.ops[0].kernel.bytes = 1000;
  plan.ops[1].kernel.bytes = 250.5;
  plan.ops[2].isView = true;  // aliases its input: moves nothing
  plan.ops[2].kernel.bytes = 1e9;
  EXPECT_DOUBLE_EQ(sim::figuresOf(plan).dramBytes, 1250.5);
  EXPECT_DOUBLE_EQ(sim::figuresOf(schedule::Plan{}).dramBytes, 0);
  // Re-reads that hit L2 are not DRAM traffic.
  plan.ops[0].kernel.l2Bytes = 400;
  EXPECT_DOUBLE_EQ(sim::figuresOf(plan).dramBytes, 850.5);
}

TEST(PlanFigures, SameKernelsSameTrafficUnderEveryOrder) {
  // One candidate per operator, so every policy picks the same rKernels.
  const ir::Graph g = rt::diamondGraph();
  rt::FakeLibrary lib;
  double want = 0, bytes = 1000;
  for (const char* name : {"a", "b", "c", "d"}) {
    lib.table[name] = {rt::fakeKernel(std::string(name) + "_k", 6, 1e6, 256, 0, bytes)};
    want += bytes;
    bytes *= 2;
  }
  auto plan = [&](const char* policy) {
    auto p = schedule::makePolicy(policy, lib.options()).value()->schedule(g, rt::smallDevice(2), {});
    EXPECT_TRUE(p.ok()) << policy << ": " << p.errorText();
    return p.ok() ? sim::figuresOf(*p) : sim::PlanFigures{};
  };
  const sim::PlanFigures sequential = plan("sequential"), wavefront = plan("wavefront");
  EXPECT_DOUBLE_EQ(sequential.dramBytes, want);
  EXPECT_DOUBLE_EQ(wavefront.dramBytes, want);
  EXPECT_NE(sequential.programs, wavefront.programs);  // different schedules, same traffic
}
