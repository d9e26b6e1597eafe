// InstanceNormalization as a layer norm over the spatial dims plus a
// per-channel affine (issue #30 item 3): the reference gives the same
// outputs before and after the standard pipeline, and what is left is a
// LayerNormalization and one FusedElementwise, both with rKernels.
#include "core/passes/instance_norm_lowering.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"
#include "core/kernels/kernel_library.h"
#include "core/passes/pass_manager.h"
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
  ir::Graph g = b.graph();
  auto inputs = exec::makeRandomInputs(g, 5);
  ASSERT_TRUE(inputs);
  auto before = exec::runReference(g, *inputs);
  ASSERT_TRUE(before) << before.errorText();

  PassContext ctx;
  ASSERT_TRUE(standardPipeline().run(g, ctx)) << "passes failed";
  std::map<std::string, int> ops;
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    const ir::Node& n = g.node(static_cast<ir::NodeId>(i));
    if (n.removed) continue;
    ++ops[n.opType];
    EXPECT_TRUE(kernels::kernelsFor(g, static_cast<ir::NodeId>(i))) << n.opType << " has no rKernel";
  }
  EXPECT_EQ(ops["InstanceNormalization"], 0);
  EXPECT_EQ(ops["LayerNormalization"], 1);
  EXPECT_EQ(ops["FusedElementwise"], 1);

  auto after = exec::runReference(g, *inputs);
  ASSERT_TRUE(after) << after.errorText();
  const ir::Tensor &want = (*before)[0], &got = (*after)[0];
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5f * (1 + std::fabs(want.data<float>()[i]))) << i;
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
