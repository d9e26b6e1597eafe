// Two policies' plans of one model: both scheduled and simulated, the
// numbers match a plan made and simulated directly through core, and the
// ratio is latency A over latency B.
#include "viz/models/plan_comparison.h"

#include <gtest/gtest.h>

#include "core/device/device_spec.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"
#include "tests/viz/editing_fixtures.h"

namespace rammer::viz {
namespace {

TEST(PlanComparisonTest, SequentialAgainstWavefrontOnSampleCnn) {
  const PipelineResult r = viztest::planSampleCnn();
  ASSERT_TRUE(r.optimized);
  const PlanComparison c = comparePolicies(r.optimized, "h100", "sequential", "wavefront");
  ASSERT_TRUE(c.a.ok);
  ASSERT_TRUE(c.b.ok);
  EXPECT_EQ(c.a.policy, "sequential");
  EXPECT_EQ(c.b.policy, "wavefront");
  ASSERT_GT(c.b.latencyUs, 0);
  EXPECT_DOUBLE_EQ(c.ratio(), c.a.latencyUs / c.b.latencyUs);

  // The same numbers straight from core, planned as `rammer schedule` plans:
  // with the analytic model's rTask times.
  auto device = device::loadDevice("h100");
  ASSERT_TRUE(device);
  const auto model = std::make_shared<const sim::AnalyticCostModel>();
  for (const PlanSummary* s : {&c.a, &c.b}) {
    auto policy = schedule::makePolicy(s->policy, sim::policyOptions(model));
    ASSERT_TRUE(policy);
    auto plan = (*policy)->schedule(*r.optimized, *device, {});
    ASSERT_TRUE(plan);
    auto trace = sim::Simulator(model).run(*plan);
    ASSERT_TRUE(trace);
    EXPECT_DOUBLE_EQ(s->latencyUs, trace->totalUs) << s->policy;
    EXPECT_DOUBLE_EQ(s->smEfficiency, trace->smEfficiency) << s->policy;
    EXPECT_EQ(s->programs, plan->programs.size());
    EXPECT_EQ(s->rtasks, plan->numRTasks());
    size_t barriers = 0;
    int veus = 0;
    for (const auto& p : plan->programs) {
      barriers += p.program.numBarriers();
      veus = std::max(veus, p.program.numVEUs());
    }
    EXPECT_EQ(s->barriers, barriers);
    EXPECT_EQ(s->maxVEUs, veus);
  }
  // RammerBase: one program per non-view operator, no barriers.
  EXPECT_EQ(c.a.barriers, 0u);
  EXPECT_GT(c.a.programs, c.b.programs);
}

TEST(PlanComparisonTest, AnUnknownPolicyFailsWithAMessage) {
  const PipelineResult r = viztest::planSampleCnn();
  const PlanComparison c = comparePolicies(r.optimized, "h100", "nonsense", "wavefront");
  EXPECT_FALSE(c.a.ok);
  EXPECT_TRUE(c.b.ok);
  EXPECT_EQ(c.ratio(), 0);
  ASSERT_FALSE(c.a.diagnostics.empty());
  EXPECT_NE(c.a.diagnostics.front().diagnostic.message.find("nonsense"), std::string::npos);
}

}  // namespace
}  // namespace rammer::viz
