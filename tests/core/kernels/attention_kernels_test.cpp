// Flash-attention rKernels of com.rammer::Attention (issue #16 item 3): both
// variants' declared rows against the reference, with and without a broadcast
// mask, query rows and keys that do not fill the last block or tile.
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;

namespace {

void checkAttention(ir::Shape q, ir::Shape kt, ir::Shape v, std::optional<ir::Shape> mask) {
  SCOPED_TRACE(ir::shapeToString(q) + " x " + ir::shapeToString(kt));
  GraphBuilder b;
  std::vector<ir::ValueId> ins = {b.input("q", q), b.input("kt", kt), b.input("v", v)};
  if (mask) ins.push_back(b.input("mask", *mask));
  ir::Attributes a;
  a.set("scale", 0.25f);
  b.output(b.node("Attention", "attn", ins, a)[0]);
  b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
  ASSERT_TRUE(b.infer().empty());
  size_t n = 0;
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4, &n, 1e-5);
  EXPECT_EQ(n, 2u);
}

}  // namespace

TEST(AttentionKernels, BothVariantsMatchTheReference) {
  checkAttention({2, 3, 70, 16}, {2, 3, 16, 45}, {2, 3, 45, 8}, std::nullopt);  // 70 rows, 45 keys
  checkAttention({1, 2, 49, 32}, {1, 2, 32, 49}, {1, 2, 49, 32}, ir::Shape{49, 49});
  checkAttention({4, 5, 8}, {4, 8, 100}, {4, 100, 8}, ir::Shape{4, 1, 100});  // mask per batch, over rows
}

TEST(AttentionKernels, KeyTilesSetTheBarrierCount) {
  GraphBuilder b;
  b.output(b.node("Attention", "attn", {b.input("q", {1, 100, 64}), b.input("kt", {1, 64, 100}), b.input("v", {1, 100, 64})})[0]);
  b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
  ASSERT_TRUE(b.infer().empty());
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok()) << k.errorText();
  const kernels::RKernel& r64 = k->candidates[0];
  EXPECT_EQ(r64.name, "attention_flash_r64");
  EXPECT_EQ(r64.numRTasks, 2);             // 100 rows in blocks of 64
  EXPECT_EQ(r64.syncCount, 2 * 4);         // 100 keys in tiles of 32
  EXPECT_EQ(r64.sharedBytes, 4 * 32 * 128);  // K and V tiles
  EXPECT_EQ(k->candidates[1].numRTasks, 4);
}
