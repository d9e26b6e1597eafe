// GraphTurbo's fused groups in their one form (issue #44 items 1-3): a conv
// chain of every member kind (tests/core/schedule/group_fixtures.h), of a
// random size, grouped under two fast-memory budgets, runs as generated
// code on the host target (fused_group.cuh) and on the emulator (the
// group's reference) and matches the ungrouped chain's reference; a wrong
// index put into the template is caught.
#include <gtest/gtest.h>

#include <random>

#include "core/codegen/code_generator.h"
#include "core/exec/plan_emulator.h"
#include "core/exec/reference_executor.h"
#include "core/schedule/graphturbo_grouping.h"
#include "tests/core/runtime/candidate_plans.h"
#include "tests/core/schedule/group_fixtures.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

namespace rt = rammer::testing;

constexpr double kTolerance = 1e-5;  // candidate_plans.h's rule

// The chain grouped under `budget` (no cost check), and how many of its
// groups run more than one instance.
struct Grouped {
  ir::Graph graph;
  size_t groups = 0, multiInstance = 0;
};

Grouped grouped(const rt::GroupFixture& f, int64_t budget) {
  schedule::GroupingOptions o;
  o.budgetBytes = budget;
  const schedule::Grouping grouping = schedule::findGroups(f.graph, o);
  auto applied = schedule::applyGroups(f.graph, grouping);
  EXPECT_TRUE(applied.ok()) << applied.errorText();
  Grouped out{std::move(applied).value()};
  out.groups = grouping.groups.size();
  for (const schedule::GroupChoice& c : grouping.groups) out.multiInstance += c.instances > 1;
  return out;
}

TEST(FusedGroupHost, RandomChainsMatchTheReferenceAsGeneratedCodeAndOnTheEmulator) {
  std::mt19937 rng(5);
  size_t multiInstance = 0;
  for (int draw = 0; draw < 2; ++draw) {
    const int64_t rows = std::uniform_int_distribution<int64_t>(5, 16)(rng);
    const int64_t cols = std::uniform_int_distribution<int64_t>(4, 14)(rng);
    SCOPED_TRACE("x [1, 4, " + std::to_string(rows) + ", " + std::to_string(cols) + "]");
    const rt::GroupFixture f = rt::convChain(rows, cols);
    auto want = exec::runReference(f.graph, f.inputs);
    ASSERT_TRUE(want.ok()) << want.errorText();
    for (int64_t budget : {int64_t{8} * 1024, int64_t{2} * 1024}) {
      SCOPED_TRACE("budget " + std::to_string(budget));
      const Grouped g = grouped(f, budget);
      ASSERT_GE(g.groups, 1u);
      multiInstance += g.multiInstance;
      const schedule::Plan plan = planWithCandidate(g.graph, 0);
      auto host = executeOnHost(plan, g.graph, f.inputs, rt::hostTestOptions());
      ASSERT_TRUE(host.ok()) << host.errorText();
      ASSERT_EQ(host->outputs.size(), 1u);
      EXPECT_LE(rt::relativeL2(host->outputs[0], (*want)[0]), kTolerance) << "generated code on the host";
      auto emulated = exec::emulatePlan(plan, g.graph, f.inputs);
      ASSERT_TRUE(emulated.ok()) << emulated.errorText();
      EXPECT_LE(rt::relativeL2(emulated->outputs[0], (*want)[0]), kTolerance) << "emulator";
    }
  }
  EXPECT_GT(multiInstance, 0u) << "no group ran more than one instance: the ranges went untested";
}

// The window reads the output's column coordinate for its rows: the
// comparison of the same generated program with the template's text changed
// leaves the rule.
TEST(FusedGroupHost, AWrongIndexInTheTemplateIsCaught) {
  const rt::GroupFixture f = rt::convChain();
  auto want = exec::runReference(f.graph, f.inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  const Grouped g = grouped(f, 8 * 1024);
  const schedule::Plan plan = planWithCandidate(g.graph, 0);
  auto gp = codegen::generateProgram(plan, g.graph, {codegen::Target::Host, true});
  ASSERT_TRUE(gp.ok()) << gp.errorText();
  const std::string right = "const I i1 = o1 * A1::stride", wrong = "const I i1 = o2 * A1::stride";
  const size_t at = gp->source.find(right);
  ASSERT_NE(at, std::string::npos) << "fused_group.cuh no longer has " << right;
  gp->source.replace(at, right.size(), wrong);
  const runtime::HostExecutionOptions o = rt::hostTestOptions();
  auto build = runtime::buildHostProgram(*gp, o.build);
  ASSERT_TRUE(build.ok()) << build.errorText();
  auto got = runtime::runHostProgram(runtime::HostProgram{*gp, *build}, plan, g.graph, f.inputs, o);
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_GT(rt::relativeL2(got->outputs[0], (*want)[0]), 1e-3) << "a wrong window row passed the check";
}

}  // namespace
}  // namespace rammer::runtime
