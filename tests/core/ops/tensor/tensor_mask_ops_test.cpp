// Trilu (issue #16 item 1): the upper and lower triangles of the last two
// dims against hand-written answers, with positive and negative diagonals,
// batched and on integers; what it refuses is named.
#include <gtest/gtest.h>

#include "tests/core/ops/tensor_test_util.h"

namespace rammer::ops::testing {
namespace {

std::vector<float> run(const NodeCase& c) {
  const ir::Tensor t = c.compute().at(0);
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

TEST(TriluOp, UpperAndLowerTrianglesAroundDiagonalK) {
  // x = [[1 2 3 4], [5 6 7 8], [9 10 11 12]]
  const ir::Tensor x = f32({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_EQ(run(NodeCase("Trilu").in(x)), (std::vector<float>{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));
  EXPECT_EQ(run(NodeCase("Trilu").attr("upper", int64_t{0}).in(x)),
            (std::vector<float>{1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}));
  EXPECT_EQ(run(NodeCase("Trilu").in(x).in(i64({}, {1}))), (std::vector<float>{0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12}));
  EXPECT_EQ(run(NodeCase("Trilu").attr("upper", int64_t{0}).in(x).in(i64({}, {-1}))),
            (std::vector<float>{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  // A causal mask: batched planes, integers.
  const auto y = NodeCase("Trilu").attr("upper", int64_t{0}).in(i64({2, 2, 2}, {1, 1, 1, 1, 2, 2, 2, 2})).compute();
  EXPECT_EQ(y.at(0).toInt64s(), (std::vector<int64_t>{1, 0, 1, 1, 2, 0, 2, 2}));
}

TEST(TriluOp, RefusesVectorsAndNonScalarK) {
  EXPECT_THROW(NodeCase("Trilu").in(f32({3}, {1, 2, 3})).infer(), OpError);
  EXPECT_THROW(NodeCase("Trilu").in(f32({2, 2}, {1, 2, 3, 4})).in(i64({2}, {0, 1})).infer(), OpError);
}

}  // namespace
}  // namespace rammer::ops::testing
