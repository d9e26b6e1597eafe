// Where the word rKernels part from the reference on purpose (issue #30's
// run-time words), checked on their one form, the CUDA text, run as
// generated code on the host target: a float beyond int32 cast to int64
// saturates at int32 (int64 is held as int32, ir/words.h), and Gather
// marks an index outside the axis with a NaN word instead of failing.
// (Before issue #44 item 2 a hand-written CPU tile repeated both.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/core/runtime/candidate_plans.h"

namespace rammer::runtime {
namespace {

TEST(WordKernelsHost, CastSaturatesAtInt32AndGatherMarksAnIndexOutsideTheAxis) {
  testing::GraphBuilder b;
  ir::Attributes toInt64;
  toInt64.set("to", static_cast<int64_t>(ir::DType::Int64));
  b.output(b.op("Cast", "cast", {b.input("x", {3})}, toInt64));
  b.output(b.op("Gather", "gather", {b.input("data", {4, 2}), b.input("ids", {2}, ir::DType::Int64)}));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph& g = b.graph();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<ir::Tensor> inputs = {ir::Tensor::fromVector<float>({3}, {inf, -inf, 3e9f}),
                                          ir::Tensor::fromVector<float>({4, 2}, std::vector<float>(8, 1.0f)),
                                          ir::Tensor::fromVector<int64_t>({2}, {4, -1})};
  auto got = executeOnHost(planWithCandidate(g, 0), g, inputs, testing::hostTestOptions());
  ASSERT_TRUE(got.ok()) << got.errorText();
  ASSERT_EQ(got->outputs.size(), 2u);
  const ir::Tensor& cast = got->outputs[0];
  EXPECT_EQ(cast.getInt64(0), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(cast.getInt64(1), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(cast.getInt64(2), std::numeric_limits<int32_t>::max());
  const ir::Tensor& gathered = got->outputs[1];
  ASSERT_EQ(gathered.numel(), 4);
  EXPECT_TRUE(std::isnan(gathered.getDouble(0)) && std::isnan(gathered.getDouble(1)));  // index 4 of 4 rows
  EXPECT_EQ(gathered.getDouble(2), 1.0);                                                 // index -1: the last row
  EXPECT_EQ(gathered.getDouble(3), 1.0);
}

}  // namespace
}  // namespace rammer::runtime
