// The policies' decision logs grouped by step (teaching mode, issue #17
// item 2): wavefront wave by wave, sequential operator by operator, greedy
// and IOS stage by stage, GraphTurbo group by group; every operator in one
// step, with the rKernels it weighed.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/core/schedule/policy_fixtures.h"

namespace rammer::schedule {
namespace {

void expectStepsCoverThePlan(const Plan& plan, const std::string& policy) {
  SCOPED_TRACE(policy);
  ASSERT_FALSE(plan.steps.empty());
  std::multiset<int32_t> placed;
  for (const PlanStep& s : plan.steps) placed.insert(s.ops.begin(), s.ops.end());
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const PlannedOp& op = plan.ops[i];
    if (op.isView) continue;
    EXPECT_EQ(placed.count(static_cast<int32_t>(i)), 1u) << op.name << " is in " << placed.count(static_cast<int32_t>(i))
                                                         << " steps";
    // The candidates the policy weighed, the chosen one among them.
    ASSERT_FALSE(op.options.empty()) << op.name;
    EXPECT_TRUE(std::any_of(op.options.begin(), op.options.end(),
                            [&](const KernelOption& o) { return o.kernel == op.kernel.name; }))
        << op.name;
    for (const KernelOption& o : op.options) {
      EXPECT_GT(o.rtasks, 0) << o.kernel;
      // An in-place Concat moves nothing (kernels/in_place.h): no time of its own.
      if (o.fits && o.kernel != "concat_in_place") EXPECT_GT(o.opUs, 0) << o.kernel;
    }
    // The policy's verdicts, recorded for teaching mode and the rKernels
    // dock to read (issue #29 item 4): the least opUs and the least SM-time.
    ASSERT_GE(op.fastestOption, 0) << op.name;
    ASSERT_GE(op.mostEfficientOption, 0) << op.name;
    ASSERT_LT(static_cast<size_t>(op.fastestOption), op.options.size());
    ASSERT_LT(static_cast<size_t>(op.mostEfficientOption), op.options.size());
    for (const KernelOption& o : op.options) {
      EXPECT_LE(op.options[static_cast<size_t>(op.fastestOption)].opUs, o.opUs) << op.name;
      EXPECT_LE(op.options[static_cast<size_t>(op.mostEfficientOption)].smUs, o.smUs) << op.name;
    }
    if (op.kernelRule == "fastest")
      EXPECT_EQ(op.kernel.name, op.options[static_cast<size_t>(op.fastestOption)].kernel) << op.name;
    if (op.kernelRule == "most efficient")
      EXPECT_EQ(op.kernel.name, op.options[static_cast<size_t>(op.mostEfficientOption)].kernel) << op.name;
  }
  // The steps' decision ranges follow each other to the end of the log.
  size_t next = plan.steps.front().firstDecision;
  for (const PlanStep& s : plan.steps) {
    EXPECT_EQ(s.firstDecision, next) << s.title;
    next = s.firstDecision + s.decisions;
  }
  EXPECT_EQ(next, plan.decisions.size());
}

TEST(PlanSteps, EveryPolicyLogsItsStepsAndEveryOperatorIsInOne) {
  for (const std::string& policy : policyNames()) {
    const auto g = testing::optimizedModel("inception_block", policy);
    auto plan = testing::analyticPlan(policy, *g);
    ASSERT_TRUE(plan.ok()) << plan.errorText();
    expectStepsCoverThePlan(*plan, policy);
  }
}

TEST(PlanSteps, EachPolicyStepsTheWayThePaperDescribesIt) {
  const auto g = testing::optimizedModel("inception_block");
  const auto title = [](const Plan& p, size_t i) { return p.steps.at(i).title; };
  auto wavefront = testing::analyticPlan("wavefront", *g).value();
  EXPECT_EQ(title(wavefront, 0), "wave 0");
  EXPECT_EQ(wavefront.steps[0].ops.size(), 4u);  // the four branch heads
  ASSERT_GT(wavefront.steps[0].decisions, 0u);
  EXPECT_NE(wavefront.decisions[wavefront.steps[0].firstDecision].find("rTasks with the fastest rKernels"), std::string::npos);
  auto sequential = testing::analyticPlan("sequential", *g).value();
  EXPECT_EQ(title(sequential, 0).rfind("operator '", 0), 0u);
  EXPECT_EQ(sequential.steps[0].ops.size(), 1u);
  EXPECT_EQ(sequential.steps.back().title, "the rPrograms' vDevices");
  auto greedy = testing::analyticPlan("greedy", *g).value();
  EXPECT_EQ(title(greedy, 0), "stage 0");
  const auto plain = testing::optimizedModel("inception_block", "ios");  // no epilogue fusion: IOS, GraphTurbo
  auto ios = testing::analyticPlan("ios", *plain).value();
  EXPECT_EQ(title(ios, 0), "the IOS search");
  EXPECT_EQ(title(ios, 1), "stage 0");
  auto graphturbo = testing::analyticPlan("graphturbo", *plain).value();
  EXPECT_EQ(title(graphturbo, 0), "the GraphTurbo grouping");
  EXPECT_EQ(title(graphturbo, 1).rfind("group '", 0), 0u);
  EXPECT_EQ(graphturbo.steps[1].ops.size(), 1u);  // the FusedGroup rOperator
  EXPECT_EQ(graphturbo.ops.at(static_cast<size_t>(graphturbo.steps[1].ops[0])).opType, "FusedGroup");
}

}  // namespace
}  // namespace rammer::schedule
