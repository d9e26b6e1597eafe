// BatchNorm folding and element-wise fusion: structure and numerics.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/exec/reference_executor.h"
#include "core/passes/batchnorm_folding.h"
#include "core/passes/elementwise_fusion.h"
#include "core/passes/pass_manager.h"
#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::firstOutput;
using rammer::testing::GraphBuilder;
using rammer::testing::opCount;

namespace {

ir::Tensor randomTensor(ir::Shape shape, uint32_t seed, float lo = -1, float hi = 1) {
  ir::Tensor t(ir::DType::Float32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& v : t.values<float>()) v = d(rng);
  return t;
}


void expectClose(const std::vector<float>& a, const std::vector<float>& b, float tol = 1e-4f) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tol * (1 + std::fabs(b[i]))) << "element " << i;
}


// x:[1,3,6,6] -> Conv(4 filters, bias) -> BN -> Relu
GraphBuilder convBnRelu(bool withBias) {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 6, 6});
  std::vector<ir::ValueId> convIn = {x, b.constant("w", randomTensor({4, 3, 3, 3}, 1))};
  if (withBias) convIn.push_back(b.constant("b", randomTensor({4}, 2)));
  auto conv = b.op("Conv", "conv", convIn, attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  auto bn = b.op("BatchNormalization", "bn",
                 {conv, b.constant("gamma", randomTensor({4}, 3, 0.5f, 1.5f)), b.constant("beta", randomTensor({4}, 4)),
                  b.constant("mean", randomTensor({4}, 5)), b.constant("var", randomTensor({4}, 6, 0.2f, 2.0f))});
  b.output(b.op("Relu", "relu", {bn}));
  return b;
}

}  // namespace

TEST(BatchNormFolding, ConvWithAndWithoutBias) {
  for (bool bias : {true, false}) {
    GraphBuilder b = convBnRelu(bias);
    ASSERT_TRUE(b.infer().empty());
    ir::Tensor x = randomTensor({1, 3, 6, 6}, 9);
    auto before = firstOutput(b.graph(), x);
    passes::PassContext ctx;
    ASSERT_TRUE(passes::BatchNormFolding().run(b.graph(), ctx).value());
    b.graph().compact();
    EXPECT_EQ(opCount(b.graph(), "BatchNormalization"), 0u);
    EXPECT_EQ(opCount(b.graph(), "Conv"), 1u);
    expectClose(firstOutput(b.graph(), x), before);
  }
}

TEST(BatchNormFolding, GemmTransBAndScalarC) {
  GraphBuilder b;
  auto x = b.input("x", {2, 5});
  auto y = b.op("Gemm", "fc", {x, b.constant("W", randomTensor({3, 5}, 1)), b.constant("C", ir::Tensor::fromVector<float>({1}, {0.25f}))},
                attrs({{"transB", int64_t{1}}, {"beta", 2.0f}}));
  auto bn = b.op("BatchNormalization", "bn",
                 {y, b.constant("g", randomTensor({3}, 2, 0.5f, 1.5f)), b.constant("be", randomTensor({3}, 3)),
                  b.constant("m", randomTensor({3}, 4)), b.constant("v", randomTensor({3}, 5, 0.5f, 1.0f))});
  b.output(bn);
  ASSERT_TRUE(b.infer().empty());
  ir::Tensor in = randomTensor({2, 5}, 11);
  auto before = firstOutput(b.graph(), in);
  passes::PassContext ctx;
  ASSERT_TRUE(passes::BatchNormFolding().run(b.graph(), ctx).value());
  b.graph().compact();
  EXPECT_EQ(b.graph().numNodes(), 1u);
  EXPECT_EQ(b.graph().value(b.graph().outputs()[0]).name, "bn");  // the output name survives
  expectClose(firstOutput(b.graph(), in), before);
}

TEST(BatchNormFolding, LeavesConvWithSecondReader) {
  GraphBuilder b = convBnRelu(true);
  auto conv = *b.graph().findValue("conv");
  b.output(conv);  // conv output is also a graph output: folding would change it
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::BatchNormFolding().run(b.graph(), ctx).value());
}

TEST(ElementwiseFusion, BiasAddActivationChainBecomesOneNode) {
  // MatMul -> Add(bias) -> Mul(0.5) -> Sigmoid -> Mul(by the add) : a tree.
  GraphBuilder b;
  auto x = b.input("x", {2, 4});
  auto mm = b.op("MatMul", "mm", {x, b.constant("W", randomTensor({4, 3}, 1))});
  auto add = b.op("Add", "bias", {mm, b.constant("B", randomTensor({3}, 2))});
  auto half = b.op("Mul", "half", {add, b.constant("h", ir::Tensor::scalar<float>(0.5f))});
  auto sig = b.op("Sigmoid", "sig", {half});
  auto neg = b.op("Neg", "neg", {sig});
  b.output(neg);
  ASSERT_TRUE(b.infer().empty());
  ir::Tensor in = randomTensor({2, 4}, 3);
  auto before = firstOutput(b.graph(), in);
  passes::PassContext ctx;
  ASSERT_TRUE(passes::ElementwiseFusion().run(b.graph(), ctx).value());
  b.graph().compact();
  ASSERT_EQ(b.graph().numNodes(), 2u);
  EXPECT_EQ(opCount(b.graph(), "MatMul"), 1u);
  EXPECT_EQ(opCount(b.graph(), "FusedElementwise"), 1u);
  const ir::Node& f = b.graph().node(b.graph().value(b.graph().outputs()[0]).producer);
  EXPECT_EQ(f.attrs.getString("expr", ""), "(neg (sigmoid (mul (add x0 x1) 0.5)))");
  EXPECT_EQ(f.inputs.size(), 2u);  // mm output and the bias; 0.5 became a literal
  expectClose(firstOutput(b.graph(), in), before);
}

// A long chain fuses into groups of at most 64 nodes (issue #18 item 4):
// fusing all of it copied the growing expression at every node, n^2 in
// time and memory, and left an expression as deep as the chain.
TEST(ElementwiseFusion, ALongChainFusesInBoundedGroups) {
  GraphBuilder b;
  ir::ValueId v = b.input("x", {1, 8});
  constexpr int kChain = 200;
  for (int i = 0; i < kChain; ++i) v = b.op(i % 2 ? "Sigmoid" : "Tanh", "n" + std::to_string(i), {v});
  b.output(v);
  ASSERT_TRUE(b.infer().empty());
  ir::Tensor in = randomTensor({1, 8}, 5);
  auto before = firstOutput(b.graph(), in);
  passes::PassContext ctx;
  ASSERT_TRUE(passes::ElementwiseFusion().run(b.graph(), ctx).value());
  b.graph().compact();
  EXPECT_EQ(b.graph().numNodes(), 4u);  // 64 + 64 + 64 + 8
  size_t fused = 0;
  for (size_t i = 0; i < b.graph().numNodeSlots(); ++i) {
    const ir::Node& n = b.graph().node(static_cast<ir::NodeId>(i));
    const size_t members = n.attrs.getStrings("fused_nodes").size();
    EXPECT_LE(members, 64u);
    fused += members;
  }
  EXPECT_EQ(fused, static_cast<size_t>(kChain));
  expectClose(firstOutput(b.graph(), in), before);
}

// Both GELUs exports write (exact, with Erf; and the tanh approximation)
// end as one fused node after the MatMul that feeds them (issue #16 item 2).
TEST(ElementwiseFusion, GeluPatternsBecomeOneNode) {
  for (bool exact : {true, false}) {
    GraphBuilder b;
    auto x = b.input("x", {2, 4});
    auto h = b.op("MatMul", "mm", {x, b.constant("W", randomTensor({4, 8}, 1))});
    auto c = [&](const std::string& name, float v) { return b.constant(name, ir::Tensor::scalar<float>(v)); };
    ir::ValueId inner;
    if (exact) {
      inner = b.op("Erf", "erf", {b.op("Div", "div", {h, c("sqrt2", 1.41421356f)})});
    } else {
      auto cube = b.op("Pow", "cube", {h, c("three", 3.0f)});
      auto poly = b.op("Add", "poly", {h, b.op("Mul", "k", {cube, c("k0", 0.044715f)})});
      inner = b.op("Tanh", "tanh", {b.op("Mul", "scale", {poly, c("k1", 0.7978845608f)})});
    }
    auto gate = b.op("Mul", "gate", {h, b.op("Add", "one_plus", {inner, c("one", 1.0f)})});
    b.output(b.op("Mul", "half", {gate, c("half_c", 0.5f)}));
    ASSERT_TRUE(b.infer().empty());
    const ir::Tensor in = randomTensor({2, 4}, 3);
    const auto before = firstOutput(b.graph(), in);
    passes::PassContext ctx;
    ASSERT_TRUE(passes::standardPipeline().run(b.graph(), ctx).ok());
    EXPECT_EQ(b.graph().numNodes(), 2u) << (exact ? "erf" : "tanh");
    EXPECT_EQ(opCount(b.graph(), "MatMul"), 1u);
    EXPECT_EQ(opCount(b.graph(), "FusedElementwise"), 1u);
    expectClose(firstOutput(b.graph(), in), before);
  }
}

TEST(ElementwiseFusion, SharedProducerIsNotDuplicated) {
  // a = Relu(x) is read by two consumers: it stays its own node.
  GraphBuilder b;
  auto x = b.input("x", {5});
  auto a = b.op("Relu", "a", {x});
  auto e = b.op("Exp", "e", {a});
  auto n = b.op("Neg", "n", {a});
  b.output(b.op("Add", "sum", {e, n}));
  ASSERT_TRUE(b.infer().empty());
  ir::Tensor in = randomTensor({5}, 4);
  auto before = firstOutput(b.graph(), in);
  passes::PassContext ctx;
  ASSERT_TRUE(passes::ElementwiseFusion().run(b.graph(), ctx).value());
  b.graph().compact();
  EXPECT_EQ(opCount(b.graph(), "FusedElementwise"), 2u);  // Relu; and Exp+Neg+Add
  expectClose(firstOutput(b.graph(), in), before);
}

TEST(ElementwiseFusion, UnfoldedBatchNormAndClipBecomeExpressions) {
  GraphBuilder b;
  auto x = b.input("x", {1, 2, 3, 3});
  auto pool = b.op("MaxPool", "pool", {x}, attrs({{"kernel_shape", std::vector<int64_t>{1, 1}}}));
  auto bn = b.op("BatchNormalization", "bn",
                 {pool, b.constant("g", randomTensor({2}, 1, 0.5f, 1.5f)), b.constant("be", randomTensor({2}, 2)),
                  b.constant("m", randomTensor({2}, 3)), b.constant("v", randomTensor({2}, 4, 0.5f, 1.0f))});
  auto clip = b.op("Clip", "relu6", {bn, b.constant("lo", ir::Tensor::scalar<float>(0)),
                                    b.constant("hi", ir::Tensor::scalar<float>(0.3f))});
  b.output(clip);
  ASSERT_TRUE(b.infer().empty());
  ir::Tensor in = randomTensor({1, 2, 3, 3}, 5);
  auto before = firstOutput(b.graph(), in);
  passes::PassContext ctx;
  ASSERT_TRUE(passes::ElementwiseFusion().run(b.graph(), ctx).value());
  b.graph().compact();
  EXPECT_EQ(opCount(b.graph(), "BatchNormalization"), 0u);
  EXPECT_EQ(opCount(b.graph(), "Clip"), 0u);
  EXPECT_EQ(opCount(b.graph(), "FusedElementwise"), 1u);
  expectClose(firstOutput(b.graph(), in), before);
}

TEST(ElementwiseFusion, LeavesIntegerShapeArithmetic) {
  GraphBuilder b;
  auto x = b.input("x", {3}, ir::DType::Int64);
  b.output(b.op("Add", "add", {x, b.constant("one", ir::Tensor::scalar<int64_t>(1))}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::ElementwiseFusion().run(b.graph(), ctx).value());
}

TEST(StandardPipeline, ConvBnReluEndsAsConvPlusOneFusedNode) {
  GraphBuilder b = convBnRelu(true);
  ASSERT_TRUE(b.infer().empty());
  ir::Tensor x = randomTensor({1, 3, 6, 6}, 9);
  auto before = firstOutput(b.graph(), x);
  passes::PassContext ctx;
  auto records = passes::standardPipeline().run(b.graph(), ctx);
  ASSERT_TRUE(records.ok()) << records.errorText();
  EXPECT_EQ(b.graph().numNodes(), 2u);
  EXPECT_EQ(opCount(b.graph(), "Conv"), 1u);
  EXPECT_EQ(opCount(b.graph(), "FusedElementwise"), 1u);
  bool bnNoted = false;
  for (const auto& r : *records)
    for (const auto& note : r.notes) bnNoted = bnNoted || note.find("folded BatchNormalization 'bn'") != std::string::npos;
  EXPECT_TRUE(bnNoted);
  expectClose(firstOutput(b.graph(), x), before);
}

TEST(ElementwiseFusion, LeavesLegacyBroadcastSemanticsAlone) {
  // Opset 6 PRelu with a [3] slope applies per channel even when the last dim
  // is also 3: numpy broadcasting would pair it with the last dim instead.
  GraphBuilder b;
  b.graph().opsetVersion = 6;
  auto x = b.input("x", {2, 3, 3});
  b.output(b.op("PRelu", "prelu", {x, b.constant("slope", ir::Tensor::fromVector<float>({3}, {0.1f, 0.2f, 0.3f}))}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::ElementwiseFusion().run(b.graph(), ctx).value());
}
