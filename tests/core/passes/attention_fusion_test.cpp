// AttentionFusion (issue #16 item 3): MatMul / scale / mask / Softmax /
// MatMul becomes one com.rammer::Attention node computing the same outputs;
// a chain with a reader in the middle is left alone.
#include <gtest/gtest.h>

#include "core/passes/attention_fusion.h"
#include "core/passes/pass_manager.h"
#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::firstOutput;
using rammer::testing::GraphBuilder;
using rammer::testing::opCount;

namespace {


struct Chain {
  enum class Scale { Mul, MulFirst, Div, None } scale = Scale::Mul;
  bool mask = true, maskFirst = false, scoresAlsoOutput = false;
};

// q [2, 3, 5, 8] . kt [2, 3, 8, 6] -> scale -> + mask [5, 6] -> softmax -> . v [2, 3, 6, 4]
GraphBuilder chain(const Chain& c) {
  GraphBuilder b;
  const auto q = b.input("q", {2, 3, 5, 8});
  const auto kt = b.input("kt", {2, 3, 8, 6});
  const auto v = b.input("v", {2, 3, 6, 4});
  auto x = b.op("MatMul", "scores", {q, kt});
  if (c.scoresAlsoOutput) b.output(x);
  const auto k = b.constant("k", ir::Tensor::scalar<float>(c.scale == Chain::Scale::Div ? 2.0f : 0.35f));
  if (c.scale == Chain::Scale::Mul) x = b.op("Mul", "scaled", {x, k});
  if (c.scale == Chain::Scale::MulFirst) x = b.op("Mul", "scaled", {k, x});
  if (c.scale == Chain::Scale::Div) x = b.op("Div", "scaled", {x, k});
  if (c.mask) {
    const auto m = b.constant("mask", rammer::testing::randomTensor({5, 6}, 9));
    x = c.maskFirst ? b.op("Add", "masked", {m, x}) : b.op("Add", "masked", {x, m});
  }
  const auto p = b.op("Softmax", "softmax", {x}, attrs({{"axis", int64_t{-1}}}));
  b.output(b.op("MatMul", "context", {p, v}));
  return b;
}

std::vector<ir::Tensor> inputs() {
  using rammer::testing::randomTensor;
  return {randomTensor({2, 3, 5, 8}, 3), randomTensor({2, 3, 8, 6}, 5), randomTensor({2, 3, 6, 4}, 7)};
}


TEST(AttentionFusion, EveryScaleAndMaskFormFusesWithEqualOutputs) {
  using S = Chain::Scale;
  for (const Chain& c : {Chain{}, Chain{S::MulFirst, true, true}, Chain{S::Div, false}, Chain{S::None, true}}) {
    GraphBuilder b = chain(c);
    ASSERT_TRUE(b.infer().empty());
    const auto before = firstOutput(b.graph(), inputs());
    passes::PassContext ctx;
    ASSERT_TRUE(passes::AttentionFusion().run(b.graph(), ctx).value());
    b.graph().compact();
    ASSERT_TRUE(b.infer().empty());
    EXPECT_EQ(b.graph().numNodes(), 1u);
    EXPECT_EQ(opCount(b.graph(), "Attention"), 1u);
    const ir::Node& a = b.graph().node(b.graph().value(b.graph().outputs()[0]).producer);
    EXPECT_EQ(a.inputs.size(), c.mask ? 4u : 3u);
    EXPECT_FLOAT_EQ(a.attrs.getFloat("scale", 0), c.scale == S::Div ? 0.5f : c.scale == S::None ? 1.0f : 0.35f);
    EXPECT_EQ(a.name, "context+attention");
    const auto after = firstOutput(b.graph(), inputs());
    ASSERT_EQ(after.size(), before.size());
    for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-5f) << i;
  }
}

TEST(AttentionFusion, LeavesAChainWhoseScoresAreRead) {
  GraphBuilder b = chain({.scoresAlsoOutput = true});
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::AttentionFusion().run(b.graph(), ctx).value());
  EXPECT_EQ(opCount(b.graph(), "Attention"), 0u);
}

// Off by default (docs/PERFORMANCE.md says why), on with fuseAttention.
TEST(AttentionFusion, RunsInTheStandardPipelineWhenAskedFor) {
  GraphBuilder plain = chain({});
  ASSERT_TRUE(plain.infer().empty());
  passes::PassContext plainCtx;
  ASSERT_TRUE(passes::standardPipeline().run(plain.graph(), plainCtx).ok());
  EXPECT_EQ(opCount(plain.graph(), "Attention"), 0u);
  GraphBuilder b = chain({});
  ASSERT_TRUE(b.infer().empty());
  const auto before = firstOutput(b.graph(), inputs());
  passes::PassContext ctx;
  ASSERT_TRUE(passes::standardPipeline({.fuseAttention = true}).run(b.graph(), ctx).ok());
  EXPECT_EQ(opCount(b.graph(), "Attention"), 1u);
  EXPECT_EQ(opCount(b.graph(), "Softmax"), 0u);
  const auto after = firstOutput(b.graph(), inputs());
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-5f) << i;
}

}  // namespace
