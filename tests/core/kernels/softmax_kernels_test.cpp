// Softmax / LogSoftmax rKernels under both opset conventions.
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;

namespace {

void checkSoftmax(const std::string& op, int64_t opset, ir::Shape x, std::optional<int64_t> axis) {
  SCOPED_TRACE(op + " opset " + std::to_string(opset));
  GraphBuilder b;
  b.graph().opsetVersion = opset;
  ir::Attributes a;
  if (axis) a.set("axis", *axis);
  b.output(b.op(op, "sm", {b.input("x", std::move(x))}, a));
  ASSERT_TRUE(b.infer().empty());
  size_t n = 0;
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4, &n);
  EXPECT_EQ(n, 2u);
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
  checkSoftmax("Softmax", 13, {3, 1000}, std::nullopt);
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
