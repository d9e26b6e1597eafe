// CumSum rKernels (issue #16 item 3): every axis, exclusive and reverse,
// against the reference.
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;

TEST(ScanKernels, CumSumAlongEveryAxisInEveryMode) {
  for (int64_t axis : {0, 1, -1})
    for (int64_t exclusive : {0, 1})
      for (int64_t reverse : {0, 1}) {
        SCOPED_TRACE("axis " + std::to_string(axis) + " exclusive " + std::to_string(exclusive) + " reverse " +
                     std::to_string(reverse));
        GraphBuilder b;
        b.output(b.op("CumSum", "cumsum", {b.input("x", {3, 5, 4}), b.constant("axis", ir::Tensor::scalar<int64_t>(axis))},
                      attrs({{"exclusive", exclusive}, {"reverse", reverse}})));
        ASSERT_TRUE(b.infer().empty());
        checkCandidates(b.graph(), lastNode(b.graph()), 1e-5, nullptr, 1e-5);
      }
}

// Many short lines: one thread each, in chunks of 1,024 and 4,096 lines.
TEST(ScanKernels, ManyLinesGetTwoChunkSizes) {
  GraphBuilder b;
  b.output(b.op("CumSum", "cumsum", {b.input("x", {4096, 3}), b.constant("axis", ir::Tensor::scalar<int64_t>(1))}));
  ASSERT_TRUE(b.infer().empty());
  size_t candidates = 0;
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-5, &candidates, 1e-5);
  EXPECT_EQ(candidates, 2u);
}

TEST(ScanKernels, RefusesARuntimeAxis) {
  GraphBuilder b;
  b.output(b.op("CumSum", "cumsum", {b.input("x", {3, 4}), b.input("axis", {}, ir::DType::Int64)}));
  ASSERT_TRUE(b.infer().empty());
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.errorText().find("constant"), std::string::npos) << k.errorText();
}
