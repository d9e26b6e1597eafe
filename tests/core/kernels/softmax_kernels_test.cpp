// Softmax / LogSoftmax rKernels under both opset conventions.
#include <cmath>

#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;

namespace {

void checkSoftmax(const std::string& op, int64_t opset, ir::Shape x, std::optional<int64_t> axis,
                  size_t candidates = 2) {
  SCOPED_TRACE(op + " opset " + std::to_string(opset));
  GraphBuilder b;
  b.graph().opsetVersion = opset;
  ir::Attributes a;
  if (axis) a.set("axis", *axis);
  b.output(b.op(op, "sm", {b.input("x", std::move(x))}, a));
  ASSERT_TRUE(b.infer().empty());
  size_t n = 0;
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4, &n);
  EXPECT_EQ(n, candidates);
}

}  // namespace

TEST(SoftmaxKernels, LegacyCoercesToTwoDims) {
  checkSoftmax("Softmax", 11, {2, 3, 4}, std::nullopt);  // rows of 12
  checkSoftmax("LogSoftmax", 11, {2, 3, 4}, 2);
  checkSoftmax("Softmax", 11, {2, 3, 4}, 0);
}

TEST(SoftmaxKernels, Opset13SingleAxisWithInnerStride) {
  checkSoftmax("Softmax", 13, {2, 3, 4}, std::nullopt);
  checkSoftmax("Softmax", 13, {2, 3, 4}, 1);  // strided rows
  checkSoftmax("LogSoftmax", 17, {2, 5, 3}, -2);
}

TEST(SoftmaxKernels, LongRowsUseTheBlockReduction) {
  checkSoftmax("Softmax", 13, {3, 1000}, std::nullopt, 3);  // rows, block, warp
  GraphBuilder b;
  b.output(b.op("Softmax", "sm", {b.input("x", {3, 1000})}));
  ASSERT_TRUE(b.infer().empty());
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok());
  const kernels::RKernel& block = k->candidates[1];
  EXPECT_EQ(block.name, "softmax_block");
  EXPECT_EQ(block.numRTasks, 3);
  EXPECT_EQ(block.threads(), 256);
  EXPECT_EQ(block.syncCount, 2 * (2 + 8));
  EXPECT_EQ(k->candidates[0].syncCount, 0);
}

// Rows of 1,024 and more also get the one-pass (online max and sum) variant,
// with up to 1,024 threads per row (issue #16 item 3).
TEST(SoftmaxKernels, LongRowsAlsoGetTheOnlineVariant) {
  checkSoftmax("Softmax", 13, {2, 3000}, std::nullopt, 4);  // and a warp per row
  checkSoftmax("LogSoftmax", 13, {3, 1024}, std::nullopt, 4);
  checkSoftmax("Softmax", 13, {1024, 3}, 0, 3);  // strided rows
  GraphBuilder b;
  b.output(b.op("Softmax", "sm", {b.input("x", {2, 8192})}));
  ASSERT_TRUE(b.infer().empty());
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok());
  ASSERT_EQ(k->candidates.size(), 3u);
  const kernels::RKernel& online = k->candidates[2];
  EXPECT_EQ(online.name, "softmax_online");
  EXPECT_EQ(online.threads(), 1024);
  EXPECT_EQ(online.sharedBytes, 8 * 1024);
  EXPECT_EQ(online.syncCount, 2 + 10);
}

// Contiguous rows of 32 to 4,096 get a warp per row, 8 rows per rTask
// (issue #27 item 5); strided rows (the axis not innermost) do not.
TEST(SoftmaxKernels, ContiguousRowsGetAWarpPerRow) {
  checkSoftmax("Softmax", 13, {2, 13, 64}, std::nullopt, 3);
  checkSoftmax("LogSoftmax", 13, {7, 45}, std::nullopt, 3);
  checkSoftmax("Softmax", 13, {4, 64, 3}, 1, 2);  // strided rows
  GraphBuilder b;
  b.output(b.op("Softmax", "sm", {b.input("x", {26, 64})}));
  ASSERT_TRUE(b.infer().empty());
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok());
  ASSERT_EQ(k->candidates.size(), 3u);
  const kernels::RKernel& warp = k->candidates[2];
  EXPECT_EQ(warp.name, "softmax_warp");
  EXPECT_EQ(warp.numRTasks, 4);  // 26 rows / 8
  EXPECT_EQ(warp.threads(), 256);
  EXPECT_EQ(warp.syncCount, 2 * (2 + 5));
}

// Masked scores, as attention writes them: -inf and -1e9 entries, a row that
// starts masked, and a row masked but for one element.
TEST(SoftmaxKernels, OnlineVariantHandlesMaskedRows) {
  const int64_t n = 2048;
  std::vector<float> v(static_cast<size_t>(3 * n));
  for (int64_t i = 0; i < n; ++i) {
    v[static_cast<size_t>(i)] = i < n / 2 ? std::sin(0.1f * static_cast<float>(i)) : -INFINITY;
    v[static_cast<size_t>(n + i)] = i < 700 ? -INFINITY : std::cos(0.05f * static_cast<float>(i));
    v[static_cast<size_t>(2 * n + i)] = i == 1500 ? 2.0f : -1e9f;
  }
  GraphBuilder b;
  b.output(b.op("Softmax", "sm", {b.constant("scores", ir::Tensor::fromVector<float>({3, n}, v))}));
  ASSERT_TRUE(b.infer().empty());
  size_t count = 0;
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4, &count);
  EXPECT_EQ(count, 4u);  // rows, block, warp, online
}
