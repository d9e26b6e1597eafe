// ir::Graph: the mutators keep producer/consumer links consistent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/ir/graph.h"

namespace rammer::ir {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

Node makeNode(const std::string& name, const std::string& op, std::vector<ValueId> in, std::vector<ValueId> out) {
  Node n;
  n.name = name;
  n.opType = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// x -> relu -> a -> neg -> b ; a,b -> add -> y
struct Diamond {
  Graph g;
  ValueId x, a, b, y;
  NodeId relu, neg, add;
  Diamond() {
    x = g.addValue("x", {DType::Float32, {4}});
    a = g.addValue("a");
    b = g.addValue("b");
    y = g.addValue("y");
    g.addInput(x);
    relu = g.addNode(makeNode("relu", "Relu", {x}, {a}));
    neg = g.addNode(makeNode("neg", "Neg", {a}, {b}));
    add = g.addNode(makeNode("add", "Add", {a, b}, {y}));
    g.addOutput(y);
  }
};

TEST(Graph, AddValueRejectsDuplicateNames) {
  Graph g;
  EXPECT_EQ(g.addValue("v"), 0);
  EXPECT_EQ(g.addValue("w"), 1);
  EXPECT_THROW(g.addValue("v"), std::invalid_argument);
  EXPECT_EQ(g.findValue("w"), 1);
  EXPECT_EQ(g.findValue("nope"), std::nullopt);
}

TEST(Graph, AddNodeLinksProducersAndConsumers) {
  Diamond d;
  EXPECT_EQ(d.g.value(d.a).producer, d.relu);
  EXPECT_THAT(d.g.value(d.a).consumers, ElementsAre(d.neg, d.add));
  EXPECT_THAT(d.g.value(d.x).consumers, ElementsAre(d.relu));
  EXPECT_EQ(d.g.value(d.x).producer, kNone);
  EXPECT_TRUE(d.g.value(d.x).isGraphInput);
  EXPECT_TRUE(d.g.value(d.y).isGraphOutput);
  EXPECT_EQ(d.g.numNodes(), 3u);
}

TEST(Graph, SameValueTwiceAsInputCountsTwice) {
  Graph g;
  ValueId x = g.addValue("x");
  ValueId y = g.addValue("y");
  NodeId n = g.addNode(makeNode("sq", "Mul", {x, x}, {y}));
  EXPECT_THAT(g.value(x).consumers, ElementsAre(n, n));
}

TEST(Graph, SecondProducerThrowsAndNamesBoth) {
  Diamond d;
  try {
    d.g.addNode(makeNode("other", "Relu", {d.x}, {d.a}));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'a'"));
    EXPECT_THAT(e.what(), HasSubstr("'relu'"));
    EXPECT_THAT(e.what(), HasSubstr("'other'"));
  }
  EXPECT_EQ(d.g.value(d.a).producer, d.relu);
  EXPECT_THAT(d.g.value(d.x).consumers, ElementsAre(d.relu));  // nothing half-linked
}

TEST(Graph, RemoveNodeUnlinksAndTombstones) {
  Diamond d;
  d.g.removeNode(d.neg);
  EXPECT_TRUE(d.g.node(d.neg).removed);
  EXPECT_EQ(d.g.numNodes(), 2u);
  EXPECT_EQ(d.g.numNodeSlots(), 3u);
  EXPECT_THAT(d.g.value(d.a).consumers, ElementsAre(d.add));
  EXPECT_EQ(d.g.value(d.b).producer, kNone);
  d.g.removeNode(d.neg);  // twice is harmless
  EXPECT_EQ(d.g.numNodes(), 2u);
}

TEST(Graph, ReplaceAllUsesMovesNodeInputsAndGraphOutputs) {
  Diamond d;
  ValueId z = d.g.addValue("z");
  d.g.replaceAllUses(d.a, d.x);
  EXPECT_THAT(d.g.node(d.neg).inputs, ElementsAre(d.x));
  EXPECT_THAT(d.g.node(d.add).inputs, ElementsAre(d.x, d.b));
  EXPECT_TRUE(d.g.value(d.a).consumers.empty());
  EXPECT_THAT(d.g.value(d.x).consumers, ElementsAre(d.relu, d.neg, d.add));

  d.g.replaceAllUses(d.y, z);
  EXPECT_THAT(d.g.outputs(), ElementsAre(z));
  EXPECT_TRUE(d.g.value(z).isGraphOutput);
  EXPECT_FALSE(d.g.value(d.y).isGraphOutput);
  d.g.replaceAllUses(z, z);  // no-op
  EXPECT_THAT(d.g.outputs(), ElementsAre(z));
}

TEST(Graph, SetNodeInputRelinks) {
  Diamond d;
  d.g.setNodeInput(d.add, 1, d.x);
  EXPECT_THAT(d.g.node(d.add).inputs, ElementsAre(d.a, d.x));
  EXPECT_TRUE(d.g.value(d.b).consumers.empty());
  EXPECT_THAT(d.g.value(d.x).consumers, ElementsAre(d.relu, d.add));
  d.g.setNodeInput(d.add, 3, d.b);  // grows with omitted slots
  EXPECT_THAT(d.g.node(d.add).inputs, ElementsAre(d.a, d.x, kNone, d.b));
  d.g.setNodeInput(d.add, 3, kNone);
  EXPECT_TRUE(d.g.value(d.b).consumers.empty());
}

TEST(Graph, SetOutputsUpdatesFlags) {
  Diamond d;
  d.g.setOutputs({d.a, d.b});
  EXPECT_FALSE(d.g.value(d.y).isGraphOutput);
  EXPECT_TRUE(d.g.value(d.a).isGraphOutput);
  EXPECT_TRUE(d.g.value(d.b).isGraphOutput);
}

TEST(Graph, TopologicalOrderIsStable) {
  Graph g;
  ValueId x = g.addValue("x");
  ValueId p = g.addValue("p"), q = g.addValue("q"), r = g.addValue("r");
  NodeId late = g.addNode(makeNode("late", "Add", {p, q}, {r}));  // listed first, runs last
  NodeId n1 = g.addNode(makeNode("n1", "Relu", {x}, {p}));
  NodeId n2 = g.addNode(makeNode("n2", "Relu", {x}, {q}));
  auto order = g.topologicalOrder();
  ASSERT_TRUE(order.ok()) << order.errorText();
  EXPECT_THAT(*order, ElementsAre(n1, n2, late));
}

TEST(Graph, TopologicalOrderSkipsTombstones) {
  Diamond d;
  d.g.removeNode(d.relu);
  auto order = d.g.topologicalOrder();
  ASSERT_TRUE(order.ok());
  EXPECT_THAT(*order, ElementsAre(d.neg, d.add));
}

TEST(Graph, CycleIsReportedWithItsNodes) {
  Graph g;
  ValueId x = g.addValue("x"), a = g.addValue("a"), b = g.addValue("b"), c = g.addValue("c"), y = g.addValue("y");
  g.addNode(makeNode("head", "Relu", {x}, {c}));
  g.addNode(makeNode("n_a", "Add", {c, b}, {a}));
  g.addNode(makeNode("n_b", "Relu", {a}, {b}));
  g.addNode(makeNode("after", "Relu", {a}, {y}));
  auto order = g.topologicalOrder();
  ASSERT_FALSE(order.ok());
  const std::string text = order.errorText();
  EXPECT_THAT(text, HasSubstr("cycle"));
  EXPECT_THAT(text, HasSubstr("'n_a'"));
  EXPECT_THAT(text, HasSubstr("'n_b'"));
  EXPECT_THAT(text, Not(HasSubstr("'head'")));
  EXPECT_THAT(text, Not(HasSubstr("'after'")));
}

TEST(Graph, SelfLoopIsACycle) {
  Graph g;
  ValueId v = g.addValue("v");
  g.addNode(makeNode("self", "Relu", {v}, {v}));
  auto order = g.topologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_THAT(order.errorText(), HasSubstr("'self' -> 'self'"));
}

TEST(Graph, CompactDropsTombstonesAndUnusedValuesAndRenumbers) {
  Diamond d;
  ValueId orphan = d.g.addValue("orphan");
  (void)orphan;
  d.g.replaceAllUses(d.b, d.a);  // add now reads a twice; neg's output b is unused
  d.g.removeNode(d.neg);
  d.g.compact();
  EXPECT_EQ(d.g.numNodeSlots(), 2u);
  EXPECT_EQ(d.g.numValues(), 3u);  // x, a, y
  EXPECT_FALSE(d.g.findValue("orphan").has_value());
  EXPECT_FALSE(d.g.findValue("b").has_value());
  ValueId a = *d.g.findValue("a"), x = *d.g.findValue("x"), y = *d.g.findValue("y");
  EXPECT_EQ(d.g.node(1).name, "add");
  EXPECT_THAT(d.g.node(1).inputs, ElementsAre(a, a));
  EXPECT_EQ(d.g.value(y).producer, 1);
  EXPECT_EQ(d.g.value(a).producer, 0);
  EXPECT_THAT(d.g.value(a).consumers, ElementsAre(1, 1));
  EXPECT_THAT(d.g.inputs(), ElementsAre(x));
  EXPECT_THAT(d.g.outputs(), ElementsAre(y));
  EXPECT_EQ(d.g.addValue("b"), 3);  // the name is free again
}

TEST(Graph, UniqueValueName) {
  Graph g;
  g.addValue("t");
  g.addValue("t_1");
  EXPECT_EQ(g.uniqueValueName("fresh"), "fresh");
  EXPECT_EQ(g.uniqueValueName("t"), "t_2");
}

TEST(Graph, NodeSlotAccessorsToleratesShortLists) {
  Node n = makeNode("n", "Op", {3}, {});
  EXPECT_EQ(n.input(0), 3);
  EXPECT_EQ(n.input(5), kNone);
  EXPECT_EQ(n.output(0), kNone);
}

}  // namespace
}  // namespace rammer::ir
