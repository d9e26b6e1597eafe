// LayerNormFusion (issue #16 item 2): the decomposed layer normalization of
// pre-opset-17 exports becomes one LayerNormalization node with the same
// outputs; patterns it must not touch stay as they are.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/passes/layernorm_fusion.h"
#include "core/passes/pass_manager.h"
#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::firstOutput;
using rammer::testing::GraphBuilder;
using rammer::testing::opCount;

namespace {

ir::Tensor randomTensor(ir::Shape shape, uint32_t seed) {
  ir::Tensor t(ir::DType::Float32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-2, 2);
  for (float& v : t.values<float>()) v = d(rng);
  return t;
}

ir::Tensor scalar(float v) { return ir::Tensor::fromVector<float>({}, {v}); }



struct Decomposed {
  bool axesAsInput = false;  // opset 18's ReduceMean
  bool squareByMul = false;  // d * d instead of Pow(d, 2)
  bool affine = true;
  std::vector<int64_t> axes = {-1};
  bool meanIsAlsoOutput = false;
};

// x [2, 3, 8] -> torch's decomposed LayerNorm -> Relu, so the last value of
// the pattern has a reader outside it.
GraphBuilder decomposed(const Decomposed& o) {
  GraphBuilder b;
  if (o.axesAsInput) b.graph().opsetVersion = 18;
  auto x = b.input("x", {2, 3, 8});
  auto reduce = [&](const std::string& name, ir::ValueId in) {
    if (o.axesAsInput)
      return b.op("ReduceMean", name, {in, b.constant(name + ".axes", ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(o.axes.size())}, o.axes))});
    return b.op("ReduceMean", name, {in}, attrs({{"axes", o.axes}}));
  };
  auto mean = reduce("mean", x);
  auto d = b.op("Sub", "sub", {x, mean});
  auto p = o.squareByMul ? b.op("Mul", "square", {d, d}) : b.op("Pow", "pow", {d, b.constant("two", scalar(2.0f))});
  auto var = reduce("var", p);
  auto ve = b.op("Add", "add_eps", {var, b.constant("eps", scalar(1e-5f))});
  auto y = b.op("Div", "div", {d, b.op("Sqrt", "sqrt", {ve})});
  if (o.affine) {
    ir::Shape shape = o.axes.size() == 1 ? ir::Shape{8} : ir::Shape{3, 8};
    y = b.op("Mul", "gamma_mul", {y, b.constant("gamma", randomTensor(shape, 7))});
    y = b.op("Add", "beta_add", {b.constant("beta", randomTensor(shape, 8)), y});  // beta first: either order
  }
  b.output(b.op("Relu", "relu", {y}));
  if (o.meanIsAlsoOutput) b.output(mean);
  return b;
}

// Fuses, and the graph computes what it did before.
void expectFused(const Decomposed& o, int64_t axis) {
  GraphBuilder b = decomposed(o);
  ASSERT_TRUE(b.infer().empty());
  const ir::Tensor x = randomTensor({2, 3, 8}, 3);
  const auto before = firstOutput(b.graph(), x);
  passes::PassContext ctx;
  ASSERT_TRUE(passes::LayerNormFusion().run(b.graph(), ctx).value());
  b.graph().compact();
  ASSERT_TRUE(b.infer().empty());
  EXPECT_EQ(opCount(b.graph(), "LayerNormalization"), 1u);
  EXPECT_EQ(opCount(b.graph(), "ReduceMean"), 0u);
  EXPECT_EQ(b.graph().numNodes(), 2u);  // LayerNormalization, Relu
  const auto order = b.graph().topologicalOrder();
  ASSERT_TRUE(order.ok());
  for (ir::NodeId n : *order) {
    const ir::Node& node = b.graph().node(n);
    if (node.opType != "LayerNormalization") continue;
    EXPECT_EQ(node.attrs.getInt("axis", 0), axis);
    EXPECT_FLOAT_EQ(node.attrs.getFloat("epsilon", 0), 1e-5f);
    EXPECT_EQ(node.name, o.affine ? "beta_add" : "div");
  }
  const auto after = firstOutput(b.graph(), x);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-5f * (1 + std::fabs(before[i]))) << i;
  ASSERT_EQ(ctx.takeNotes().size(), 1u);
}

TEST(LayerNormFusion, TorchOpset14PatternWithGammaAndBeta) { expectFused({}, 2); }

TEST(LayerNormFusion, Opset18AxesInputSquareByMulNoAffineTwoAxes) {
  expectFused({.axesAsInput = true, .squareByMul = true, .affine = false, .axes = {-2, -1}}, 1);
}

TEST(LayerNormFusion, LeavesPatternsItCannotReplace) {
  for (const Decomposed& o : {Decomposed{.axes = {1}}, Decomposed{.meanIsAlsoOutput = true}}) {
    GraphBuilder b = decomposed(o);
    ASSERT_TRUE(b.infer().empty());
    const size_t nodes = b.graph().numNodes();
    passes::PassContext ctx;
    EXPECT_FALSE(passes::LayerNormFusion().run(b.graph(), ctx).value());
    EXPECT_EQ(b.graph().numNodes(), nodes);
  }
}

TEST(LayerNormFusion, RunsInTheStandardPipeline) {
  GraphBuilder b = decomposed({});
  ASSERT_TRUE(b.infer().empty());
  const ir::Tensor x = randomTensor({2, 3, 8}, 5);
  const auto before = firstOutput(b.graph(), x);
  passes::PassContext ctx;
  ASSERT_TRUE(passes::standardPipeline().run(b.graph(), ctx).ok());
  EXPECT_EQ(opCount(b.graph(), "LayerNormalization"), 1u);
  const auto after = firstOutput(b.graph(), x);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-5f * (1 + std::fabs(before[i]))) << i;
}

}  // namespace
