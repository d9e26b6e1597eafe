// GraphTurbo's grouping on hand-built graphs with known answers: a chain
// that fits is one group; a working set too large splits into more
// instances, and past the finest split stops the group; a diamond groups
// without a cycle; the cost check and schedule edits stop a group, each
// with the reason recorded.
#include "core/schedule/graphturbo_grouping.h"

#include <gtest/gtest.h>

#include "core/exec/reference_executor.h"
#include "tests/core/schedule/group_fixtures.h"

namespace rammer::schedule {
namespace {

using testing::fused;

std::vector<std::string> memberNames(const ir::Graph& g, const GroupChoice& c) {
  std::vector<std::string> names;
  for (ir::NodeId m : c.members) names.push_back(g.node(m).name);
  return names;
}

void expectSameOutputs(const ir::Graph& a, const ir::Graph& b, const std::vector<ir::Tensor>& inputs) {
  auto want = exec::runReference(a, inputs);
  auto got = exec::runReference(b, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  ASSERT_TRUE(got.ok()) << got.errorText();
  ASSERT_EQ(want->size(), got->size());
  for (size_t o = 0; o < want->size(); ++o) {
    const auto x = (*want)[o].values<float>(), y = (*got)[o].values<float>();
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], y[i], 1e-4f) << "output " << o << " element " << i;
  }
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

TEST(GraphTurboGrouping, AChainOfElementwiseOpsThatFitsIsOneGroup) {
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 8, 16, 16});
  ir::ValueId v = fused(b, "e1", "(mul x0 2)", {x});
  v = fused(b, "e2", "(relu x0)", {v});
  v = fused(b, "e3", "(add x0 x1)", {v, x});
  v = fused(b, "e4", "(tanh x0)", {v});
  b.output(v);
  ASSERT_TRUE(b.infer().empty());
  GroupingOptions o;
  o.budgetBytes = 64 * 1024;  // e1..e3: 3 x 8 KB each
  const Grouping g = findGroups(b.graph(), o);
  ASSERT_EQ(g.groups.size(), 1u);
  const GroupChoice& c = g.groups.front();
  EXPECT_EQ(memberNames(b.graph(), c), (std::vector<std::string>{"e1", "e2", "e3", "e4"}));
  EXPECT_EQ(c.instances, 1);
  EXPECT_EQ(c.workingSetBytes, 3 * 8 * 16 * 16 * 4);
  EXPECT_DOUBLE_EQ(c.recompute, 1.0);
  EXPECT_EQ(c.stop, "no producer could join");
  EXPECT_TRUE(g.alone.empty());
  // Half the budget: two instances of half the rows each.
  o.budgetBytes = 12 * 1024;
  const Grouping half = findGroups(b.graph(), o);
  ASSERT_EQ(half.groups.size(), 1u);
  EXPECT_EQ(half.groups.front().instances, 2);
  EXPECT_EQ(half.groups.front().spec.piece, 4);  // of 8 channels: dim 1 comes first at equal size
  auto rewritten = applyGroups(b.graph(), half);
  ASSERT_TRUE(rewritten.ok()) << rewritten.errorText();
  expectSameOutputs(b.graph(), *rewritten, {testing::randomTensor({1, 8, 16, 16}, 3)});
}

// A group grows one producer at a time and re-reads all its members at each
// step: groups stop at maxMembers, so a long chain costs linear time.
TEST(GraphTurboGrouping, AGroupHoldsAtMostMaxMembersOperators) {
  testing::GraphBuilder b;
  ir::ValueId v = b.input("x", {1, 8, 4, 4});
  for (int i = 0; i < 40; ++i) v = fused(b, "e" + std::to_string(i), i % 2 ? "(relu x0)" : "(tanh x0)", {v});
  b.output(v);
  ASSERT_TRUE(b.infer().empty());
  GroupingOptions o;
  o.maxMembers = 16;
  const Grouping g = findGroups(b.graph(), o);
  ASSERT_FALSE(g.groups.empty());
  bool capped = false;
  for (const GroupChoice& c : g.groups) {
    EXPECT_LE(c.members.size(), 16u);
    capped = capped || c.stop.find("the group holds 16 operators, the most a group takes") != std::string::npos;
  }
  EXPECT_TRUE(capped);
}

TEST(GraphTurboGrouping, AWorkingSetTooLargeSplitsIntoMoreInstancesThenStops) {
  const testing::GroupFixture f = testing::convChain();
  GroupingOptions o;
  int64_t previous = 0;
  for (int64_t budget : {int64_t{1} << 20, int64_t{8} * 1024}) {
    o.budgetBytes = budget;
    const Grouping g = findGroups(f.graph, o);
    ASSERT_EQ(g.groups.size(), 1u) << budget;
    const GroupChoice& c = g.groups.front();
    EXPECT_EQ(c.members.size(), 7u);
    EXPECT_LE(c.workingSetBytes, budget);
    EXPECT_GT(c.instances, previous) << budget;
    EXPECT_EQ(c.instances, c.smallestFit);  // without a cost model, the smallest count that fits
    previous = c.instances;
  }
  // Finer still, the halos of the 3x3 convolutions recompute too much: the
  // chain stops short of the first one.
  o.budgetBytes = 6 * 1024;
  const Grouping halos = findGroups(f.graph, o);
  ASSERT_EQ(halos.groups.size(), 1u);
  EXPECT_EQ(halos.groups.front().members.size(), 6u);
  EXPECT_NE(halos.groups.front().stop.find("with 'c1': recomputed halos, 2.93x the outputs, exceed 1.50x"), std::string::npos)
      << halos.groups.front().stop;
  // Not even one row of the sink fits: the chain breaks where it must.
  o.budgetBytes = 1024;
  const Grouping tight = findGroups(f.graph, o);
  for (const GroupChoice& c : tight.groups) EXPECT_LE(c.workingSetBytes, 1024);
  EXPECT_LT(tight.groups.size() == 1 ? tight.groups.front().members.size() : 0u, 7u);
  EXPECT_TRUE(mentions(tight.alone, "exceeds the 1 KB budget") ||
              (!tight.groups.empty() && tight.groups.front().stop.find("exceeds the 1 KB budget") != std::string::npos));
}

// a -> b -> d and a -> c -> d. With b an op groups cannot hold, a is read
// outside the group that d and c form, so it stays out: the groups' graph
// has no cycle and computes the same outputs. With b element-wise, the
// whole diamond is one group.
TEST(GraphTurboGrouping, ADiamondGroupsWithoutACycle) {
  for (const bool softmax : {true, false}) {
    SCOPED_TRACE(softmax ? "b is a Softmax" : "b is element-wise");
    testing::GraphBuilder b;
    const ir::ValueId x = b.input("x", {1, 4, 8, 8});
    const ir::ValueId a = fused(b, "a", "(relu x0)", {x});
    const ir::ValueId bv = softmax ? b.op("Softmax", "b", {a}, testing::attrs({{"axis", int64_t{1}}}))
                                   : fused(b, "b", "(mul x0 3)", {a});
    const ir::ValueId c = fused(b, "c", "(tanh x0)", {a});
    b.output(fused(b, "d", "(add x0 x1)", {bv, c}));
    ASSERT_TRUE(b.infer().empty());
    const Grouping g = findGroups(b.graph(), GroupingOptions{});
    ASSERT_EQ(g.groups.size(), 1u);
    if (softmax) {
      EXPECT_EQ(memberNames(b.graph(), g.groups.front()), (std::vector<std::string>{"c", "d"}));
      EXPECT_NE(g.groups.front().stop.find("'a' is also read outside the group"), std::string::npos) << g.groups.front().stop;
      EXPECT_TRUE(mentions(g.alone, "fused groups do not implement Softmax"));
    } else {
      EXPECT_EQ(memberNames(b.graph(), g.groups.front()), (std::vector<std::string>{"a", "b", "c", "d"}));
    }
    auto rewritten = applyGroups(b.graph(), g);
    ASSERT_TRUE(rewritten.ok()) << rewritten.errorText();
    EXPECT_TRUE(rewritten->topologicalOrder().ok());
    expectSameOutputs(b.graph(), *rewritten, {testing::randomTensor({1, 4, 8, 8}, 5)});
  }
}

TEST(GraphTurboGrouping, TheCostModelAndScheduleEditsStopAGroup) {
  const testing::GroupFixture f = testing::convChain();
  std::map<std::string, ir::NodeId> id;
  for (size_t i = 0; i < f.graph.numNodeSlots(); ++i) id[f.graph.node(static_cast<ir::NodeId>(i)).name] = static_cast<ir::NodeId>(i);
  // Every group predicted slower than its members apart: nothing groups.
  GroupingOptions slow;
  slow.soloUs = [](ir::NodeId) { return 1.0; };
  slow.kernelUs = [](const kernels::RKernel&) { return 100.0; };
  const Grouping none = findGroups(f.graph, slow);
  EXPECT_TRUE(none.groups.empty());
  EXPECT_TRUE(mentions(none.alone, "the group is predicted slower (100 us"));
  // A group predicted faster with more instances takes them.
  GroupingOptions fast;
  fast.soloUs = [](ir::NodeId) { return 10.0; };
  fast.kernelUs = [](const kernels::RKernel& k) { return 100.0 / static_cast<double>(k.numRTasks); };
  const Grouping many = findGroups(f.graph, fast);
  ASSERT_FALSE(many.groups.empty());
  for (const GroupChoice& c : many.groups) EXPECT_GT(c.instances, c.smallestFit);
  // The grouped convolution is pinned by an edit: the group stops below it.
  GroupingOptions edited;
  edited.excluded = [&](ir::NodeId n) { return n == id.at("c2"); };
  const Grouping cut = findGroups(f.graph, edited);
  ASSERT_FALSE(cut.groups.empty());
  for (const GroupChoice& c : cut.groups)
    for (ir::NodeId m : c.members) EXPECT_NE(m, id.at("c2"));
  EXPECT_EQ(memberNames(f.graph, cut.groups.back()), (std::vector<std::string>{"p1", "a1", "e2", "c3"}));
  EXPECT_NE(cut.groups.back().stop.find("'c2' is named by a schedule edit"), std::string::npos) << cut.groups.back().stop;
}

}  // namespace
}  // namespace rammer::schedule
