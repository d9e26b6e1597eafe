// Where the word rKernels part from the reference on purpose (issue #30's
// run-time words), checked on their one form, the CUDA text, run as
// generated code on the host target: a float beyond int32 cast to int64
// saturates at int32 (int64 is held as int32, ir/words.h), and Gather
// marks an index outside the axis with a NaN word instead of failing.
// (Before issue #44 item 2 a hand-written CPU tile repeated both.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/exec/reference_executor.h"
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

// Integer arithmetic on words (elementwise.cuh's folds and maps) matches
// the reference exactly, signs and a three-input Max among them: Neg, Abs,
// Sub, Mul, Max, Min, Div, Mod (the divisor's sign) and Mod with fmod (the
// dividend's). (A zero divisor the reference refuses; the code gives 0.)
TEST(WordKernelsHost, IntegerArithmeticMatchesTheReferenceExactly) {
  testing::GraphBuilder b;
  const ir::Shape s = {8};
  const ir::ValueId x = b.input("x", s, ir::DType::Int32), y = b.input("y", s, ir::DType::Int32),
                    z = b.input("z", s, ir::DType::Int32);
  ir::Attributes fmod;
  fmod.set("fmod", int64_t{1});
  b.output(b.op("Neg", "neg", {x}));
  b.output(b.op("Abs", "abs", {x}));
  b.output(b.op("Sub", "sub", {x, y}));
  b.output(b.op("Mul", "mul", {x, y}));
  b.output(b.op("Max", "max", {x, y, z}));
  b.output(b.op("Min", "min", {x, y}));
  b.output(b.op("Div", "div", {x, y}));
  b.output(b.op("Mod", "mod", {x, y}));
  b.output(b.op("Mod", "fmod", {x, y}, fmod));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph& g = b.graph();
  const std::vector<ir::Tensor> inputs = {
      ir::Tensor::fromVector<int32_t>(s, {7, -7, 7, -7, 0, 12, -1, 5}),
      ir::Tensor::fromVector<int32_t>(s, {3, 3, -3, -3, 4, 5, 2, -4}),
      ir::Tensor::fromVector<int32_t>(s, {9, -9, 0, 1, -2, 13, 0, 4})};
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  auto got = executeOnHost(planWithCandidate(g, 0), g, inputs, testing::hostTestOptions());
  ASSERT_TRUE(got.ok()) << got.errorText();
  ASSERT_EQ(got->outputs.size(), want->size());
  for (size_t o = 0; o < want->size(); ++o)
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(got->outputs[o].getInt64(i), (*want)[o].getInt64(i))
          << g.value(g.outputs()[o]).name << " element " << i;
}

}  // namespace
}  // namespace rammer::runtime
