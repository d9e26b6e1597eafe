// LayerNormalization rKernels (issue #16 item 3): the block-reduction and
// the row-per-thread candidates against the reference, over the last axis
// and over several, with constant and run-time Scale and B, one value or a
// whole row of them; what they do not take is named. And Trilu's.
#include "core/kernels/norm_kernels.h"

#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;
using rammer::testing::randomTensor;

namespace {

// LayerNormalization of x over axis; scale and bias constants unless `runtimeScale`.
ir::Graph layerNorm(ir::Shape x, int64_t axis, ir::Shape scale, std::optional<ir::Shape> bias, bool runtimeScale = false,
                    size_t outputs = 1) {
  GraphBuilder b;
  std::vector<ir::ValueId> in = {b.input("x", x)};
  in.push_back(runtimeScale ? b.input("scale", scale) : b.constant("scale", randomTensor(scale, 11, 0.5f, 1.5f)));
  if (bias) in.push_back(b.constant("bias", randomTensor(*bias, 12)));
  const auto outs = b.node("LayerNormalization", "ln", in, attrs({{"axis", axis}, {"epsilon", 1e-3f}}), outputs);
  for (ir::ValueId v : outs) b.output(v);
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

}  // namespace

TEST(LayerNormKernels, LastAxisAndSeveralAxesMatchTheReference) {
  size_t n = 0;
  const ir::Graph last = layerNorm({2, 5, 48}, -1, {48}, ir::Shape{48});
  checkCandidates(last, lastNode(last), 1e-5, &n);
  EXPECT_EQ(n, 2u);
  // Rows of 4 x 6 = 24, Scale shaped like them and given at run time, no B.
  const ir::Graph two = layerNorm({3, 4, 6}, 1, {4, 6}, std::nullopt, true);
  checkCandidates(two, lastNode(two), 1e-5, &n);
  EXPECT_EQ(n, 2u);
  // One Scale and one B for every element; 300 rows: three rTasks of the row kernel.
  const ir::Graph scalar = layerNorm({300, 16}, -1, {1}, ir::Shape{1});
  checkCandidates(scalar, lastNode(scalar), 1e-5, &n);
  auto ks = kernels::kernelsFor(scalar, lastNode(scalar));
  ASSERT_TRUE(ks.ok());
  EXPECT_EQ(ks->candidates[0].name, "layernorm_block");
  EXPECT_EQ(ks->candidates[0].numRTasks, 300);
  EXPECT_EQ(ks->candidates[1].name, "layernorm_rows");
  EXPECT_EQ(ks->candidates[1].numRTasks, 3);
  // Long rows: the block reduction walks them with 256 threads.
  const ir::Graph wide = layerNorm({2, 1000}, -1, {1000}, ir::Shape{1000});
  checkCandidates(wide, lastNode(wide), 1e-4, &n);
}

TEST(LayerNormKernels, WhatTheyDoNotTakeIsNamed) {
  const ir::Graph stats = layerNorm({2, 8}, -1, {8}, ir::Shape{8}, false, 3);
  auto ks = kernels::kernelsFor(stats, lastNode(stats));
  ASSERT_FALSE(ks.ok());
  EXPECT_NE(ks.errorText().find("Mean and InvStdDev"), std::string::npos) << ks.errorText();
  const ir::Graph partial = layerNorm({3, 4, 6}, 1, {6}, std::nullopt);
  ks = kernels::kernelsFor(partial, lastNode(partial));
  ASSERT_FALSE(ks.ok());
  EXPECT_NE(ks.errorText().find("Scale broadcasts over part of the normalized shape"), std::string::npos) << ks.errorText();
}

// Trilu's element-wise rKernel (a transformer's causal mask when it is not
// folded away): upper and lower, positive and negative diagonals, batched.
TEST(TriluKernels, MatchTheReference) {
  for (const auto& [upper, k] : {std::pair{int64_t{1}, int64_t{0}}, std::pair{int64_t{0}, int64_t{0}},
                                 std::pair{int64_t{1}, int64_t{2}}, std::pair{int64_t{0}, int64_t{-3}}}) {
    SCOPED_TRACE("upper " + std::to_string(upper) + " k " + std::to_string(k));
    GraphBuilder b;
    const ir::ValueId x = b.input("x", {3, 40, 50});
    b.output(b.op("Trilu", "mask", {x, b.constant("k", ir::Tensor::fromVector<int64_t>({}, {k}))},
                  attrs({{"upper", upper}})));
    ASSERT_TRUE(b.infer().empty());
    checkCandidates(b.graph(), lastNode(b.graph()), 0);
  }
}
