// IOS's operator merge as a graph rewrite: convolutions, Gemms and MatMuls
// that read one input become one wider operator and a Split; the graph then
// computes exactly what it did (the reference executor on both), every
// other node and every value keep their ids, and what cannot merge is
// refused with the node named and the graph left as it was.
#include "core/schedule/operator_merge.h"

#include <gtest/gtest.h>


#include "core/exec/reference_executor.h"
#include "tests/support/graph_builder.h"

namespace rammer::schedule {
namespace {

using testing::attrs;
using testing::randomTensor;

// x [1,8,6,6] feeds 1x1 convolutions a (4 channels, bias), b (6, no bias),
// a 3x3 one (c) and grouped ones; y [1,8,6,6] feeds d. z [2,16]
// feeds Gemms g1 (transB, bias per column), g2 (transB, scalar bias), g3
// (no bias) and MatMuls m1, m2.
struct Fixture {
  ir::Graph graph;
  std::vector<ir::Tensor> inputs;
  std::map<std::string, ir::NodeId> node;
};

Fixture makeFixture() {
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 8, 6, 6});
  const ir::ValueId y = b.input("y", {1, 8, 6, 6});
  const ir::ValueId z = b.input("z", {2, 16});
  uint32_t seed = 1;
  auto w = [&](const std::string& name, ir::Shape s) { return b.constant(name, randomTensor(std::move(s), seed++)); };
  const ir::Attributes one = attrs({{"kernel_shape", std::vector<int64_t>{1, 1}}});
  b.output(b.op("Relu", "a.relu", {b.op("Conv", "a", {x, w("a.w", {4, 8, 1, 1}), w("a.b", {4})}, one)}));
  b.output(b.op("Conv", "b", {x, w("b.w", {6, 8, 1, 1})}, one));
  b.output(b.op("Conv", "c", {x, w("c.w", {3, 8, 3, 3})},
                attrs({{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}})));
  b.output(b.op("Conv", "grouped", {x, w("g.w", {4, 4, 1, 1})},
                attrs({{"kernel_shape", std::vector<int64_t>{1, 1}}, {"group", int64_t{2}}})));
  b.output(b.op("Conv", "grouped2", {x, w("g2conv.w", {4, 4, 1, 1})},
                attrs({{"kernel_shape", std::vector<int64_t>{1, 1}}, {"group", int64_t{2}}})));
  b.output(b.op("Conv", "d", {y, w("d.w", {5, 8, 1, 1})}, one));
  const ir::Attributes transB = attrs({{"transB", int64_t{1}}});
  b.output(b.op("Gemm", "g1", {z, w("g1.w", {8, 16}), w("g1.c", {8})}, transB));
  b.output(b.op("Gemm", "g2", {z, w("g2.w", {3, 16}), w("g2.c", {1})}, transB));
  b.output(b.op("Gemm", "g3", {z, w("g3.w", {5, 16})}, transB));
  b.output(b.op("MatMul", "m1", {z, w("m1.w", {16, 4})}));
  b.output(b.op("MatMul", "m2", {z, w("m2.w", {16, 7})}));
  EXPECT_TRUE(b.infer().empty());
  Fixture f;
  f.graph = b.graph();
  f.inputs = {randomTensor({1, 8, 6, 6}, 100), randomTensor({1, 8, 6, 6}, 101), randomTensor({2, 16}, 102)};
  for (size_t i = 0; i < f.graph.numNodeSlots(); ++i) f.node[f.graph.node(static_cast<ir::NodeId>(i)).name] = static_cast<ir::NodeId>(i);
  return f;
}

void expectSameOutputs(const ir::Graph& before, const ir::Graph& after, const std::vector<ir::Tensor>& inputs) {
  auto want = exec::runReference(before, inputs);
  auto got = exec::runReference(after, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  ASSERT_TRUE(got.ok()) << got.errorText();
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < want->size(); ++i) {
    ASSERT_EQ((*got)[i].shape(), (*want)[i].shape()) << "output " << i;
    const auto g = (*got)[i].values<float>();
    const auto w = (*want)[i].values<float>();
    for (size_t e = 0; e < w.size(); ++e) ASSERT_NEAR(g[e], w[e], 1e-5f) << "output " << i << " element " << e;
  }
}

TEST(OperatorMerge, MergedConvolutionsGemmsAndMatMulsComputeTheSameOutputs) {
  const Fixture f = makeFixture();
  ir::Graph g = f.graph;
  const std::vector<ir::ValueId> outputs = g.outputs();
  const size_t slots = g.numNodeSlots();
  for (const std::vector<std::string>& set : {std::vector<std::string>{"a", "b"}, {"g1", "g2", "g3"}, {"m1", "m2"}}) {
    std::vector<ir::NodeId> nodes;
    for (const auto& n : set) nodes.push_back(f.node.at(n));
    std::vector<ir::ValueId> outs;
    for (ir::NodeId n : nodes) outs.push_back(g.node(n).output(0));
    auto merged = mergeOperators(g, nodes);
    ASSERT_TRUE(merged.ok()) << merged.errorText();
    const ir::Node& wide = g.node(merged->merged);
    const ir::Node& split = g.node(merged->split);
    EXPECT_EQ(wide.opType, g.node(nodes[0]).opType);
    EXPECT_EQ(split.opType, "Split");
    EXPECT_EQ(split.outputs, outs);  // consumers read the same values
    EXPECT_EQ(split.input(0), wide.output(0));
    for (ir::NodeId n : nodes) EXPECT_TRUE(g.node(n).removed);
  }
  EXPECT_EQ(g.node(f.node.at("a.relu")).name, "a.relu");  // other nodes keep their ids
  EXPECT_EQ(g.node(f.node.at("c")).opType, "Conv");
  EXPECT_FALSE(g.node(f.node.at("c")).removed);
  EXPECT_EQ(g.numNodeSlots(), slots + 6);
  EXPECT_EQ(g.outputs(), outputs);
  // Names say what was merged.
  EXPECT_EQ(g.node(static_cast<ir::NodeId>(slots)).name, "a+b");
  EXPECT_EQ(g.node(static_cast<ir::NodeId>(slots + 1)).name, "a+b.split");
  // The wide convolution has every output channel: 4 + 6.
  EXPECT_EQ(g.value(g.node(static_cast<ir::NodeId>(slots)).output(0)).type.shape, (ir::Shape{1, 10, 6, 6}));
  expectSameOutputs(f.graph, g, f.inputs);
}

TEST(OperatorMerge, RefusesWhatCannotMergeAndLeavesTheGraph) {
  const Fixture f = makeFixture();
  auto refusal = [&](const std::vector<std::string>& names) {
    ir::Graph g = f.graph;
    std::vector<ir::NodeId> nodes;
    for (const auto& n : names) nodes.push_back(f.node.at(n));
    auto merged = mergeOperators(g, nodes);
    EXPECT_FALSE(merged.ok());
    EXPECT_EQ(g.numNodeSlots(), f.graph.numNodeSlots());
    for (ir::NodeId n : nodes) EXPECT_FALSE(g.node(n).removed);
    return merged.ok() ? std::string() : merged.errorText();
  };
  EXPECT_NE(refusal({"a", "d"}).find("'a' and 'd' read different inputs"), std::string::npos);
  EXPECT_NE(refusal({"a", "c"}).find("'a' and 'c' have different attributes"), std::string::npos);
  EXPECT_NE(refusal({"grouped", "grouped2"}).find("'grouped' is a grouped convolution"), std::string::npos);
  EXPECT_NE(refusal({"a", "g1"}).find("'a' is a Conv and 'g1' a Gemm"), std::string::npos);
  EXPECT_NE(refusal({"a.relu", "a"}).find("only Conv, Gemm and MatMul merge"), std::string::npos);
  EXPECT_NE(refusal({"a"}).find("at least two"), std::string::npos);
  EXPECT_NE(refusal({"a", "a"}).find("'a' is named twice"), std::string::npos);
  EXPECT_EQ(mergeObstacle(f.graph, {f.node.at("a"), f.node.at("b")}), std::nullopt);
}

TEST(OperatorMerge, TheSketchHoldsJustTheMergedOperator) {
  const Fixture f = makeFixture();
  auto sketch = sketchMerge(f.graph, {f.node.at("g1"), f.node.at("g3")});
  ASSERT_TRUE(sketch.ok()) << sketch.errorText();
  EXPECT_EQ(sketch->graph.numNodes(), 2u);  // the wide Gemm and its Split
  EXPECT_EQ(sketch->graph.node(sketch->ops.merged).opType, "Gemm");
  EXPECT_EQ(sketch->graph.value(sketch->graph.node(sketch->ops.merged).output(0)).type.shape, (ir::Shape{2, 13}));
  EXPECT_EQ(f.graph.numNodes(), f.node.size());  // the model itself is untouched
  EXPECT_FALSE(sketchMerge(f.graph, {f.node.at("a"), f.node.at("d")}).ok());
}

}  // namespace
}  // namespace rammer::schedule
