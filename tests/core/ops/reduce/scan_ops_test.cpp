// CumSum (issue #16 item 1): inclusive and exclusive, forward and reversed,
// along each axis, on floats and on int64 position ids; a non-scalar axis
// is refused.
#include <gtest/gtest.h>

#include "tests/core/ops/tensor_test_util.h"

namespace rammer::ops::testing {
namespace {

std::vector<float> floats(const ir::Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

TEST(CumSumOp, InclusiveExclusiveForwardAndReversed) {
  const ir::Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(floats(NodeCase("CumSum").in(x).in(i64({}, {1})).compute().at(0)), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(floats(NodeCase("CumSum").in(x).in(i64({}, {0})).compute().at(0)), (std::vector<float>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(floats(NodeCase("CumSum").attr("exclusive", int64_t{1}).in(x).in(i64({}, {-1})).compute().at(0)),
            (std::vector<float>{0, 1, 3, 0, 4, 9}));
  EXPECT_EQ(floats(NodeCase("CumSum").attr("reverse", int64_t{1}).in(x).in(i64({}, {1})).compute().at(0)),
            (std::vector<float>{6, 5, 3, 15, 11, 6}));
  // Position ids from a mask of ones, in int64.
  EXPECT_EQ(NodeCase("CumSum").in(i64({1, 4}, {1, 1, 1, 1})).in(i64({}, {1})).compute().at(0).toInt64s(),
            (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_THROW(NodeCase("CumSum").in(x).in(i64({2}, {0, 1})).infer(), OpError);
}

}  // namespace
}  // namespace rammer::ops::testing
