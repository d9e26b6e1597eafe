// InstanceNormalization as a layer norm over the spatial dims plus a
// per-channel affine (issue #30 item 3): the reference gives the same
// outputs before and after the standard pipeline, and what is left is a
// LayerNormalization and one FusedElementwise, both with rKernels.
#include "core/passes/instance_norm_lowering.h"

#include <gtest/gtest.h>

#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

namespace rammer::passes {
namespace {

namespace rt = rammer::testing;

void expectLoweredWithTheSameOutputs(bool constantParams) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {2, 3, 5, 7});
  ir::ValueId scale, bias;
  if (constantParams) {
    scale = b.constant("scale", ir::Tensor::fromVector<float>({3}, {0.5f, -1.0f, 2.0f}));
    bias = b.constant("bias", ir::Tensor::fromVector<float>({3}, {0.1f, 0.2f, -0.3f}));
  } else {
    scale = b.input("scale", {3});
    bias = b.input("bias", {3});
  }
  b.output(b.op("InstanceNormalization", "inorm", {x, scale, bias}, rt::attrs({{"epsilon", 1e-3f}})));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph g = rt::expectLoweredKeepingOutputs(b.graph(), 1e-5f);
  EXPECT_EQ(rt::opCount(g, "InstanceNormalization"), 0u);
  EXPECT_EQ(rt::opCount(g, "LayerNormalization"), 1u);
  EXPECT_EQ(rt::opCount(g, "FusedElementwise"), 1u);
}

TEST(InstanceNormLowering, ConstantParametersBecomeAPerChannelAffine) { expectLoweredWithTheSameOutputs(true); }
TEST(InstanceNormLowering, ParametersThatAreInputsGoThroughReshapeViews) { expectLoweredWithTheSameOutputs(false); }

TEST(InstanceNormLowering, AnUnknownChannelCountIsLeftToTheReference) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {2, ir::kUnknownDim, 5});
  b.output(
      b.op("InstanceNormalization", "inorm", {x, b.input("s", {ir::kUnknownDim}), b.input("b", {ir::kUnknownDim})}));
  (void)b.infer();
  PassContext ctx;
  EXPECT_FALSE(InstanceNormLowering().run(b.graph(), ctx).value());
}

}  // namespace
}  // namespace rammer::passes
