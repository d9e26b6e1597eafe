#include "viz/models/graph_display.h"

#include <gtest/gtest.h>

#include "tests/viz/viz_test_graphs.h"

namespace rammer::viz {
namespace {

TEST(GraphDisplay, BoxesForOperatorsAndTerminalsNotForConstants) {
  const ir::Graph g = viztest::diamond();
  const GraphDisplay d = buildGraphDisplay(g);
  ASSERT_EQ(d.nodes.size(), 6u);
  EXPECT_EQ(d.nodes[0].title, "Conv");
  EXPECT_EQ(d.nodes[0].name, "conv");
  EXPECT_EQ(d.nodes[0].category, ops::OpCategory::Convolution);
  EXPECT_EQ(d.nodes[1].category, ops::OpCategory::Activation);
  EXPECT_EQ(d.nodes[4].kind, DisplayNodeKind::GraphInput);
  EXPECT_EQ(d.nodes[4].name, "x");
  EXPECT_EQ(d.nodes[5].kind, DisplayNodeKind::GraphOutput);
  EXPECT_EQ(d.nodes[5].name, "add_c");
  for (const DisplayNode& n : d.nodes) EXPECT_NE(n.name, "w") << "the weight is a parameter, not a box";
  for (int id = 0; id < 4; ++id) EXPECT_EQ(d.indexOfNode(id), id);
  EXPECT_EQ(d.indexOfNode(99), -1);
}

TEST(GraphDisplay, EdgesJoinProducerToConsumerWithShapeLabels) {
  const ir::Graph g = viztest::diamond();
  const GraphDisplay d = buildGraphDisplay(g);
  // x->conv, conv->relu_a, conv->sigmoid_b, relu_a->add_c, sigmoid_b->add_c, add_c->output
  std::vector<std::tuple<int, int, std::string>> want = {
      {4, 0, "1\u00D73\u00D78\u00D78"}, {0, 1, "1\u00D74\u00D78\u00D78"}, {0, 2, "1\u00D74\u00D78\u00D78"},
      {1, 3, "1\u00D74\u00D78\u00D78"}, {2, 3, "1\u00D74\u00D78\u00D78"}, {3, 5, "1\u00D74\u00D78\u00D78"}};
  ASSERT_EQ(d.edges.size(), want.size());
  for (const auto& [from, to, label] : want) {
    bool found = false;
    for (const DisplayEdge& e : d.edges)
      if (e.from == from && e.to == to) {
        found = true;
        EXPECT_EQ(e.label, label) << from << "->" << to;
      }
    EXPECT_TRUE(found) << "missing edge " << from << "->" << to;
  }
}

TEST(GraphDisplay, ValueReadTwiceIsOneEdge) {
  const ir::Graph g = viztest::grid(1, 1);  // Add(in, in)
  const GraphDisplay d = buildGraphDisplay(g);
  ASSERT_EQ(d.nodes.size(), 3u);
  EXPECT_EQ(d.edges.size(), 2u);  // in->cell, cell->output
}

TEST(GraphDisplay, FusedElementwiseIsACollapsibleGroup) {
  const ir::Graph g = viztest::fusedDiamond();
  const GraphDisplay d = buildGraphDisplay(g);
  ASSERT_EQ(d.nodes.size(), 4u);  // conv, fused, input, output
  const DisplayNode& f = d.nodes[1];
  EXPECT_EQ(f.title, "FusedElementwise");
  EXPECT_EQ(f.name, "add_c+fused");
  EXPECT_TRUE(f.isFusedGroup());
  EXPECT_EQ(f.fusedMembers, (std::vector<std::string>{"Relu:relu_a", "Sigmoid:sigmoid_b", "Add:add_c"}));
  EXPECT_EQ(f.expr, "(add (relu x0) (sigmoid x0))");
  EXPECT_FALSE(d.nodes[0].isFusedGroup());
}

TEST(GraphDisplay, ShapeLabels) {
  EXPECT_EQ(shapeLabel({ir::DType::Float32, {}, true}), "scalar");
  EXPECT_EQ(shapeLabel({ir::DType::Float32, {2, ir::kUnknownDim}, true}), "2\u00D7?");
  EXPECT_EQ(shapeLabel({ir::DType::Float32, {}, false}), "?");
}

}  // namespace
}  // namespace rammer::viz
