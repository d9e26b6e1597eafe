// Policies' plans of one model: each scheduled and simulated, the numbers
// match a plan made and simulated directly through core, and the speedup is
// sequential's latency over the plan's.
#include "viz/models/plan_comparison.h"

#include <gtest/gtest.h>

#include "core/device/device_spec.h"
#include "core/schedule/policy.h"
#include "core/ops/math/fused_epilogue.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"
#include "tests/viz/editing_fixtures.h"

namespace rammer::viz {
namespace {

ComparedModel compared(const PipelineResult& r) {
  return {r.artifacts.original, r.artifacts.optimized, r.request.options.policy};
}

// Epilogue fusion follows the policy (pipeline::EpilogueFusion::Auto): the
// wavefront plans the session's fused graph, IOS and GraphTurbo the
// imported graph optimized again without it.
TEST(PlanComparisonTest, IosAndGraphTurboPlanTheGraphWithoutEpilogueFusion) {
  const PipelineResult r = viztest::planSampleCnn();
  ASSERT_TRUE(r.artifacts.optimized);
  auto fusedNodes = [](const schedule::Plan& plan) {
    size_t n = 0;
    for (const auto& op : plan.ops) n += ops::epilogueOpOf(op.opType) ? 1 : 0;
    return n;
  };
  const std::vector<PlanSummary> c = summarizePolicies(compared(r), "h100", {schedule::PolicyId::Wavefront, schedule::PolicyId::Ios, schedule::PolicyId::GraphTurbo});
  ASSERT_EQ(c.size(), 3u);
  for (const PlanSummary& s : c) ASSERT_TRUE(s.ok()) << schedule::policyName(s.policy);
  EXPECT_GT(fusedNodes(*c[0].plan), 0u);
  EXPECT_EQ(fusedNodes(*c[1].plan), 0u);
  EXPECT_EQ(fusedNodes(*c[2].plan), 0u);
}

// The Compare window plans with the session's choices: with epilogue
// fusion forced on, IOS plans the fused graph too.
TEST(PlanComparisonTest, EveryPolicyPlansWithTheSessionsFusionMode) {
  const PipelineResult r = viztest::planSampleCnn();
  ASSERT_TRUE(r.artifacts.optimized);
  ComparedModel model = compared(r);
  model.choices.epilogues = pipeline::EpilogueFusion::Fused;
  const std::vector<PlanSummary> c = summarizePolicies(model, "h100", {schedule::PolicyId::Ios});
  ASSERT_EQ(c.size(), 1u);
  ASSERT_TRUE(c[0].ok()) << pipeline::failureText(c[0]);
  size_t fused = 0;
  for (const auto& op : c[0].plan->ops) fused += ops::epilogueOpOf(op.opType) ? 1 : 0;
  EXPECT_GT(fused, 0u);
}

TEST(PlanComparisonTest, SequentialAgainstWavefrontOnSampleCnn) {
  const PipelineResult r = viztest::planSampleCnn();
  ASSERT_TRUE(r.artifacts.optimized);
  const std::vector<PlanSummary> c = summarizePolicies(compared(r), "h100", {schedule::PolicyId::Sequential, schedule::PolicyId::Wavefront});
  ASSERT_EQ(c.size(), 2u);
  const PlanSummary& a = c[0];
  const PlanSummary& b = c[1];
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a.policy, schedule::PolicyId::Sequential);
  EXPECT_EQ(b.policy, schedule::PolicyId::Wavefront);
  ASSERT_GT(b.figures.predictedUs, 0);
  EXPECT_DOUBLE_EQ(pipeline::speedupOverSequential(c, b).value_or(0), a.figures.predictedUs / b.figures.predictedUs);

  // The same numbers straight from core, planned as `rammer schedule` plans:
  // with the analytic model's rTask times.
  auto device = device::loadDevice("h100");
  ASSERT_TRUE(device);
  const auto model = std::make_shared<const sim::AnalyticCostModel>();
  for (const PlanSummary* s : {&a, &b}) {
    auto policy = schedule::makePolicy(s->policy, sim::policyOptions(model));
    ASSERT_TRUE(policy);
    auto plan = policy->schedule(*r.artifacts.optimized, *device, {});
    ASSERT_TRUE(plan);
    auto trace = sim::Simulator(model).run(*plan);
    ASSERT_TRUE(trace);
    EXPECT_DOUBLE_EQ(s->figures.predictedUs, trace->totalUs) << schedule::policyName(s->policy);
    EXPECT_DOUBLE_EQ(s->figures.smEfficiency, trace->smEfficiency) << schedule::policyName(s->policy);
    EXPECT_EQ(s->figures.programs, plan->programs.size());
    EXPECT_EQ(s->figures.rtasks, plan->numRTasks());
    size_t barriers = 0;
    int veus = 0;
    for (const auto& p : plan->programs) {
      barriers += p.program.numBarriers();
      veus = std::max(veus, p.program.numVEUs());
    }
    EXPECT_EQ(s->figures.barriers, barriers);
    EXPECT_EQ(s->figures.maxVEUs, veus);
  }
  // RammerBase: one program per non-view operator, no barriers.
  EXPECT_EQ(a.figures.barriers, 0u);
  EXPECT_GT(a.figures.programs, b.figures.programs);
}

// A policy is a typed value (an unknown name never gets this far); one
// that fails, here on a device that does not exist, keeps its message.
TEST(PlanComparisonTest, APolicyThatFailsKeepsItsMessage) {
  const PipelineResult r = viztest::planSampleCnn();
  const std::vector<PlanSummary> failed = summarizePolicies(compared(r), "nonsense", {schedule::PolicyId::Wavefront});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_FALSE(failed[0].ok());
  ASSERT_FALSE(failed[0].report.errors().empty());
  EXPECT_NE(pipeline::failureText(failed[0]).find("nonsense"), std::string::npos);
  const std::vector<PlanSummary> c = summarizePolicies(compared(r), "h100", {schedule::PolicyId::Wavefront});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].ok());
  EXPECT_EQ(pipeline::speedupOverSequential(c, c[0]).value_or(0), 0) << "no sequential plan to compare with";
}

// Every policy, as the Compare window and `rammer compare` show them; the
// speedup is sequential's latency over each plan's.
TEST(PlanComparisonTest, EveryPolicyWithItsSpeedupOverSequential) {
  const PipelineResult r = viztest::planSampleCnn();
  const std::vector<schedule::PolicyId> names = schedule::policyIds();
  const std::vector<PlanSummary> all = summarizePolicies(compared(r), "h100", names);
  ASSERT_EQ(all.size(), names.size());
  double sequential = 0;
  for (const PlanSummary& s : all)
    if (s.policy == schedule::PolicyId::Sequential) sequential = s.figures.predictedUs;
  ASSERT_GT(sequential, 0);
  for (size_t i = 0; i < all.size(); ++i) {
    ASSERT_TRUE(all[i].ok()) << schedule::policyName(all[i].policy);
    EXPECT_EQ(all[i].policy, names[i]);
    EXPECT_GT(all[i].figures.dramBytes, 0) << schedule::policyName(all[i].policy);
    EXPECT_DOUBLE_EQ(pipeline::speedupOverSequential(all, all[i]).value_or(0), sequential / all[i].figures.predictedUs);
  }
  // Cancelled before it starts: nothing is planned.
  std::atomic<bool> cancel{true};
  pipeline::Control control;
  control.cancel = &cancel;
  EXPECT_TRUE(summarizePolicies(compared(r), "h100", names, control).empty());
}

}  // namespace
}  // namespace rammer::viz
