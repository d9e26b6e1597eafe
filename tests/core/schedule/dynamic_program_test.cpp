// The dynamic policy and its programs (issue #31 items 1-2): operators with
// gates, consumer lists, priorities and a ready queue instead of placed
// rTasks; what the validator proves of them, and what it catches.
#include "core/schedule/dynamic_program.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/schedule/dynamic_policy.h"
#include "core/schedule/validator.h"
#include "tests/core/schedule/policy_fixtures.h"
#include "tests/support/plan_mutation.h"

namespace rammer::schedule {
namespace {

using testing::analyticPlan;
using testing::optimizedModel;

bool mentions(const ValidationReport& r, const std::string& text) {
  return std::any_of(r.problems.begin(), r.problems.end(),
                     [&](const PlanProblem& p) { return p.message.find(text) != std::string::npos; });
}

TEST(DynamicPolicy, PlansGatesPrioritiesAndAQueueTheValidatorProves) {
  for (const char* model : {"inception_block", "sample_cnn"}) {
    SCOPED_TRACE(model);
    const auto g = optimizedModel(model, "dynamic");
    auto plan = analyticPlan("dynamic", *g);
    ASSERT_TRUE(plan.ok()) << plan.errorText();
    EXPECT_EQ(plan->policy, "dynamic");
    ASSERT_FALSE(plan->programs.empty());
    size_t ops = 0;
    for (size_t p = 0; p < plan->programs.size(); ++p) {
      const ProgramInfo& info = plan->programs[p];
      ASSERT_TRUE(info.dynamic) << "program " << p;
      EXPECT_GT(info.program.numVEUs(), 0);
      const DynamicProgram& dp = *info.dynamic;
      ops += dp.ops.size();
      EXPECT_EQ(dp.queueCapacity, static_cast<int64_t>(dp.ops.size()));
      EXPECT_FALSE(dp.initial.empty());
      for (size_t i = 0; i < dp.ops.size(); ++i) {
        // A producer's path to the end runs through each consumer's.
        for (int32_t c : dp.ops[i].consumers) EXPECT_GT(dp.ops[i].priority, dp.ops[static_cast<size_t>(c)].priority);
        int64_t gate = 0;
        for (int32_t q : plan->ops[static_cast<size_t>(dp.ops[i].op)].producers)
          for (const DynamicOp& o : dp.ops)
            if (o.op == q) gate += o.rtasks;
        EXPECT_EQ(dp.ops[i].gate, gate);
      }
      EXPECT_TRUE(std::is_sorted(dp.initial.begin(), dp.initial.end(), [&](int32_t a, int32_t b) {
        return dp.ops[static_cast<size_t>(a)].priority > dp.ops[static_cast<size_t>(b)].priority;
      }));
    }
    size_t live = 0;
    for (const PlannedOp& op : plan->ops) live += op.isView ? 0 : 1;
    EXPECT_EQ(ops, live) << "every operator in exactly one dynamic program";
    const ValidationReport r = checkPlan(*plan, *g);
    EXPECT_TRUE(r.ok()) << ir::formatDiagnostics(diagnosticsOf(r));
    EXPECT_EQ(plan->numRTasks(), [&] {
      size_t n = 0;
      for (const PlannedOp& op : plan->ops) n += op.isView ? 0 : static_cast<size_t>(op.kernel.numRTasks);
      return n;
    }());
  }
}

// A dropped dependency edge, a gate one short, a queue too small and a
// consumer before its producer: each is named.
TEST(DynamicPolicy, TheValidatorCatchesEveryBrokenGateQueueAndOrder) {
  const auto g = optimizedModel("inception_block", "dynamic");
  const Plan good = analyticPlan("dynamic", *g).value();
  auto edit = [&](const std::function<void(DynamicProgram&)>& f) {
    return checkPlan(testing::withDynamicEdit(good, 0, f), *g);
  };
  // Find an operator with a producer in the program.
  const DynamicProgram& dp0 = *good.programs[0].dynamic;
  size_t producer = dp0.ops.size();
  for (size_t i = 0; i < dp0.ops.size() && producer == dp0.ops.size(); ++i)
    if (!dp0.ops[i].consumers.empty()) producer = i;
  ASSERT_LT(producer, dp0.ops.size());
  const auto consumer = static_cast<size_t>(dp0.ops[producer].consumers.front());

  EXPECT_TRUE(
      mentions(edit([&](DynamicProgram& d) { d.ops[producer].consumers.erase(d.ops[producer].consumers.begin()); }),
               "decrements the gates of"));
  EXPECT_TRUE(
      mentions(edit([&](DynamicProgram& d) { d.ops[consumer].gate -= 1; }), "producer rTasks must finish first"));
  EXPECT_TRUE(mentions(edit([&](DynamicProgram& d) { d.queueCapacity = 1; }), "could overflow"));
  EXPECT_TRUE(mentions(edit([&](DynamicProgram& d) { std::swap(d.ops[producer], d.ops[consumer]); }),
                       "the order is not topological"));
  EXPECT_TRUE(mentions(edit([&](DynamicProgram& d) { d.initial.pop_back(); }), "the queue at launch holds"));
  EXPECT_TRUE(mentions(edit([&](DynamicProgram& d) { d.ops[producer].rtasks += 1; }), "rTasks, its rKernel"));
  EXPECT_TRUE(mentions(edit([&](DynamicProgram& d) { d.claimShards = 0; }), "claim shards for"));
  const int veus = good.programs[0].program.numVEUs();
  EXPECT_TRUE(mentions(edit([&](DynamicProgram& d) { d.claimShards = veus + 1; }), "a shard per vEU at most"));
  EXPECT_TRUE(checkPlan(testing::withDynamicEdit(good, 0, [&](DynamicProgram& d) { d.claimShards = veus; }), *g).ok());
}

TEST(DynamicPolicy, TakesPinnedKernelsAndCutsButRefusesAVEUPin) {
  const auto g = optimizedModel("sample_cnn", "dynamic");
  const Plan plain = analyticPlan("dynamic", *g).value();
  // The second live operator: cut before it; pin one of its other rKernels.
  std::string second;
  int32_t secondOp = -1;
  for (size_t i = 0, live = 0; i < plain.ops.size() && second.empty(); ++i)
    if (!plain.ops[i].isView && live++ == 1) second = plain.ops[i].name, secondOp = static_cast<int32_t>(i);
  ASSERT_FALSE(second.empty());
  Constraints c;
  c.cutBefore.insert(second);
  auto cut = analyticPlan("dynamic", *g, c);
  ASSERT_TRUE(cut.ok()) << cut.errorText();
  EXPECT_EQ(cut->programs.size(), plain.programs.size() + 1);
  EXPECT_NE(cut->programs[1].cutReason.find("cut_before"), std::string::npos) << cut->programs[1].cutReason;
  EXPECT_TRUE(checkPlan(*cut, *g).ok());

  const PlannedOp& op = plain.ops[static_cast<size_t>(secondOp)];
  for (const KernelOption& o : op.options)
    if (o.kernel != op.kernel.name) {
      Constraints k;
      k.kernelFor[second] = o.kernel;
      auto pinned = analyticPlan("dynamic", *g, k);
      ASSERT_TRUE(pinned.ok()) << pinned.errorText();
      EXPECT_EQ(pinned->ops[static_cast<size_t>(secondOp)].kernel.name, o.kernel);
      break;
    }

  // A pinned shape holds for the whole program, operators after it included.
  Constraints shaped;
  shaped.shapeFor[second] = 1;
  auto one = analyticPlan("dynamic", *g, shaped);
  ASSERT_TRUE(one.ok()) << one.errorText();
  ASSERT_EQ(one->programs.size(), 1u);
  EXPECT_EQ(one->programs[0].veusPerSM, 1);
  EXPECT_TRUE(checkPlan(*one, *g).ok());

  // Claim shards hold for the whole program; two counts in one program, more
  // shards than vEUs, or the edit given to a static policy are refused.
  EXPECT_EQ(plain.programs[0].dynamic->claimShards, 1) << "one claim counter per operator unless edited";
  Constraints sharded;
  sharded.claimShardsFor[second] = 8;
  auto eight = analyticPlan("dynamic", *g, sharded);
  ASSERT_TRUE(eight.ok()) << eight.errorText();
  EXPECT_EQ(eight->programs[0].dynamic->claimShards, 8);
  EXPECT_TRUE(checkPlan(*eight, *g).ok());
  const std::string first = plain.ops[static_cast<size_t>(plain.programs[0].dynamic->ops.front().op)].name;
  sharded.claimShardsFor[first] = 4;
  auto conflicting = analyticPlan("dynamic", *g, sharded);
  ASSERT_FALSE(conflicting.ok());
  EXPECT_NE(conflicting.errorText().find("in the same program asks for"), std::string::npos) << conflicting.errorText();
  Constraints tooMany;
  tooMany.claimShardsFor[second] = plain.programs[0].program.numVEUs() + 1;
  auto refusedShards = analyticPlan("dynamic", *g, tooMany);
  ASSERT_FALSE(refusedShards.ok());
  EXPECT_NE(refusedShards.errorText().find("a shard per vEU at most"), std::string::npos) << refusedShards.errorText();
  Constraints eightOnly;
  eightOnly.claimShardsFor[second] = 8;
  for (const std::string& policy : staticPolicyNames()) {
    auto staticPlan = analyticPlan(policy, *g, eightOnly);
    ASSERT_FALSE(staticPlan.ok()) << policy;
    EXPECT_NE(staticPlan.errorText().find("claim_shards applies to the dynamic policy"), std::string::npos)
        << policy << ": " << staticPlan.errorText();
  }

  Constraints v;
  v.pins.push_back(TaskPin{second, 0, 1, -1});
  auto refused = analyticPlan("dynamic", *g, v);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.errorText().find("places rTasks at run time"), std::string::npos) << refused.errorText();
  EXPECT_NE(refused.errorText().find(second), std::string::npos) << refused.errorText();
}

}  // namespace
}  // namespace rammer::schedule
