// Unary math and activation ops through the registry. Expected values were
// computed with numpy (float64) and pasted here.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/core/ops/math_test_util.h"

namespace rammer::ops {
namespace {

using namespace mathtest;
using ir::DType;
using ir::Shape;

struct Case {
  const char* op;
  std::vector<float> in;
  std::vector<float> want;
  ir::Attributes attrs = {};
};

const std::vector<float> kX = {-1.5f, -0.5f, 0.f, 0.3f, 1.f, 2.5f};
const std::vector<float> kPos = {0.25f, 1.f, 2.f, 9.f};
const std::vector<float> kUnit = {-0.9f, -0.2f, 0.f, 0.5f};

std::vector<Case> cases() {
  return {
      {"Exp", kX, {0.22313016, 0.60653066, 1, 1.34985881, 2.71828183, 12.182494}},
      {"Neg", kX, {1.5, 0.5, -0, -0.3, -1, -2.5}},
      {"Abs", kX, {1.5, 0.5, 0, 0.3, 1, 2.5}},
      {"Floor", kX, {-2, -1, 0, 0, 1, 2}},
      {"Ceil", kX, {-1, -0, 0, 1, 1, 3}},
      {"Erf", kX, {-0.966105146, -0.520499878, 0, 0.328626759, 0.842700793, 0.999593048}},
      {"Sin", kX, {-0.997494987, -0.479425539, 0, 0.295520207, 0.841470985, 0.598472144}},
      {"Cos", kX, {0.0707372017, 0.877582562, 1, 0.955336489, 0.540302306, -0.801143616}},
      {"Tan", kX, {-14.1014199, -0.54630249, 0, 0.30933625, 1.55740772, -0.747022297}},
      {"Atan", kX, {-0.982793723, -0.463647609, 0, 0.291456794, 0.785398163, 1.19028995}},
      {"Sinh", kX, {-2.12927946, -0.521095305, 0, 0.304520293, 1.17520119, 6.05020448}},
      {"Cosh", kX, {2.35240962, 1.12762597, 1, 1.04533851, 1.54308063, 6.13228948}},
      {"Asinh", kX, {-1.19476322, -0.481211825, 0, 0.295673048, 0.881373587, 1.64723115}},
      {"Sqrt", kPos, {0.5, 1, 1.41421356, 3}},
      {"Log", kPos, {-1.38629436, 0, 0.693147181, 2.19722458}},
      {"Reciprocal", kPos, {4, 1, 0.5, 0.111111111}},
      {"Acosh", kPos, {NAN, 0, 1.3169579, 2.88727095}},
      {"Asin", kUnit, {-1.11976951, -0.201357921, 0, 0.523598776}},
      {"Acos", kUnit, {2.69056584, 1.77215425, 1.57079633, 1.04719755}},
      {"Atanh", kUnit, {-1.47221949, -0.202732554, 0, 0.549306144}},
      // Halves round to even.
      {"Round", {0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6}, {0, 2, 2, -0, -2, 2, -3}},
      {"Sign", {-3, -0.f, 0, 2, NAN}, {-1, 0, 0, 1, NAN}},
      // Activations.
      {"Relu", kX, {0, 0, 0, 0.3, 1, 2.5}},
      {"LeakyRelu", kX, {-0.015, -0.005, 0, 0.3, 1, 2.5}},
      {"LeakyRelu", kX, {-0.75, -0.25, 0, 0.3, 1, 2.5}, attrs({{"alpha", 0.5f}})},
      {"Elu", kX, {-0.77686984, -0.39346934, 0, 0.3, 1, 2.5}},
      {"Elu", kX, {-1.55373968, -0.786938681, 0, 0.3, 1, 2.5}, attrs({{"alpha", 2.0f}})},
      {"Selu", kX, {-1.36581436, -0.69175819, 0, 0.315210307, 1.05070102, 2.62675256}},
      {"Sigmoid", kX, {0.182425524, 0.377540669, 0.5, 0.574442517, 0.731058579, 0.92414182}},
      {"HardSigmoid", kX, {0.2, 0.4, 0.5, 0.56, 0.7, 1}},
      {"HardSwish", kX, {-0.375, -0.208333333, 0, 0.165, 0.666666667, 2.29166667}},
      {"Tanh", kX, {-0.905148254, -0.462117157, 0, 0.291312612, 0.761594156, 0.986614298}},
      {"Softplus", kX, {0.201413278, 0.474076984, 0.693147181, 0.854355244, 1.31326169, 2.57888973}},
      {"Softsign", kX, {-0.6, -0.333333333, 0, 0.230769231, 0.5, 0.714285714}},
      {"Shrink", kX, {-1.5, 0, 0, 0, 1, 2.5}},
      {"Shrink", kX, {-1.25, 0, 0, 0, 0, 2.25}, attrs({{"lambd", 1.0f}, {"bias", 0.25f}})},
      {"Celu", kX, {-1.05526689, -0.442398434, 0, 0.3, 1, 2.5}, attrs({{"alpha", 2.0f}})},
      {"ThresholdedRelu", kX, {0, 0, 0, 0, 1, 2.5}, attrs({{"alpha", 0.3f}})},
  };
}

TEST(UnaryOps, Float32AgainstNumpy) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.op);
    const Shape shape{static_cast<int64_t>(c.in.size())};
    expectTensor<float>(run1(c.op, {f32(shape, c.in)}, c.attrs), shape, c.want);
  }
}

TEST(UnaryOps, NegativeZeroAndSignBits) {
  ir::Tensor y = run1("Abs", {f32({2}, {-0.f, -2.f})});
  EXPECT_FALSE(std::signbit(y.values<float>()[0]));
  EXPECT_TRUE(std::signbit(run1("Neg", {f32({1}, {0.f})}).values<float>()[0]));
}

TEST(UnaryOps, Float64KeepsPrecision) {
  ir::Tensor x = tensor<double>({2}, {1.0, 1e-12});
  ir::Tensor y = run1("Exp", {x});
  expectTensor<double>(y, {2}, {2.718281828459045, 1.000000000001}, 1e-15);
}

TEST(UnaryOps, IntegerVariants) {
  expectTensor<int32_t>(run1("Neg", {tensor<int32_t>({3}, {-4, 0, 7})}), {3}, {4, 0, -7});
  expectTensor<int64_t>(run1("Abs", {i64({3}, {-4, 0, 7})}), {3}, {4, 0, 7});
  expectTensor<int64_t>(run1("Sign", {i64({3}, {-4, 0, 7})}), {3}, {-1, 0, 1});
  expectTensor<int32_t>(run1("Relu", {tensor<int32_t>({3}, {-4, 0, 7})}), {3}, {0, 0, 7});
  // The most negative value has no positive counterpart: it wraps, without UB.
  const int32_t lo = std::numeric_limits<int32_t>::min();
  expectTensor<int32_t>(run1("Neg", {tensor<int32_t>({1}, {lo})}), {1}, {lo});
  expectOpError([] { run1("Sqrt", {tensor<int32_t>({1}, {4})}); }, {"Sqrt", "int32"});
  expectOpError([] { run1("Exp", {tensor<bool>({1}, {true})}); }, {"bool"});
}

TEST(UnaryOps, ExtremeInputsStayFinite) {
  ir::Tensor s = run1("Sigmoid", {f32({3}, {-1000.f, 0.f, 1000.f})});
  expectTensor<float>(s, {3}, {0.f, 0.5f, 1.f});
  // softplus(100) = 100 + log1p(e^-100); softplus(-100) = e^-100 ~ 3.7e-44 (denormal in float).
  ir::Tensor p = run1("Softplus", {f32({2}, {100.f, -100.f})});
  EXPECT_FLOAT_EQ(p.values<float>()[0], 100.f);
  EXPECT_GE(p.values<float>()[1], 0.f);
  EXPECT_LT(p.values<float>()[1], 1e-40f);
}

TEST(UnaryOps, InferKeepsTypeAndUnknownDims) {
  auto t = inferOp("Sigmoid", {tt(DType::Float32, {ir::kUnknownDim, 3})});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0], tt(DType::Float32, {ir::kUnknownDim, 3}));
  ir::TensorType unranked{DType::Float32, {}, false};
  EXPECT_FALSE(inferOp("Relu", {unranked})[0].rankKnown);
  EXPECT_DOUBLE_EQ(flopsOf("Relu", {tt(DType::Float32, {2, 3, 4})}), 24.0);
  EXPECT_EQ(def("Relu").category, OpCategory::Activation);
  EXPECT_EQ(def("Sqrt").category, OpCategory::Elementwise);
}

// X = (arange(24).reshape(2, 3, 4) - 11) / 2
std::vector<float> preluX() {
  std::vector<float> x;
  for (int i = 0; i < 24; ++i) x.push_back((static_cast<float>(i) - 11.f) / 2.f);
  return x;
}

TEST(PRelu, ChannelSlopeBroadcast) {
  // slope [3, 1] against [2, 3, 4]: one slope per dim-1 channel.
  const std::vector<float> want = {-0.55, -0.5, -0.45, -0.4, -0.7, -0.6, -0.5, -0.4, -0.45, -0.3, -0.15, 0,
                                   0.5,   1,    1.5,   2,    2.5,  3,    3.5,  4,    4.5,   5,    5.5,   6};
  expectTensor<float>(run1("PRelu", {f32({2, 3, 4}, preluX()), f32({3, 1}, {0.1f, 0.2f, 0.3f})}), {2, 3, 4}, want);
  // Opset 6 has no broadcasting: a 1-D slope of size C is per channel.
  expectTensor<float>(run1("PRelu", {f32({2, 3, 4}, preluX()), f32({3}, {0.1f, 0.2f, 0.3f})}, {}, 6), {2, 3, 4},
                      want);
}

TEST(PRelu, NumpyAlignedSlope) {
  // From opset 7 a 1-D slope aligns with the last dim.
  const std::vector<float> want = {-5.5, -10, -13.5, -16, -3.5, -6, -7.5, -8, -1.5, -2, -1.5, 0,
                                   0.5,  1,   1.5,   2,   2.5,  3,  3.5,  4,  4.5,  5,  5.5,  6};
  expectTensor<float>(run1("PRelu", {f32({2, 3, 4}, preluX()), f32({4}, {1, 2, 3, 4})}), {2, 3, 4}, want);
  // A scalar slope applies everywhere.
  expectTensor<float>(run1("PRelu", {f32({3}, {-2, 0, 2}), f32({1}, {0.25f})}), {3}, {-0.5f, 0.f, 2.f});
}

TEST(PRelu, SlopeThatDoesNotBroadcastIsAnError) {
  expectOpError([] { run1("PRelu", {f32({2, 3, 4}, preluX()), f32({3}, {1, 2, 3})}); }, {"[3]", "[2, 3, 4]"});
  expectOpError([] { inferOp("PRelu", {tt(DType::Float32, {2, 3, 4}), tt(DType::Float32, {2, 2, 3, 4})}); },
                {"[2, 2, 3, 4]"});
  // The slope may not grow X.
  expectOpError([] { run1("PRelu", {f32({2}, {1, -1}), f32({2, 2}, {1, 1, 1, 1})}); }, {"[2, 2]"});
  EXPECT_EQ(inferOp("PRelu", {tt(DType::Float32, {ir::kUnknownDim, 3, 4}), tt(DType::Float32, {3, 1})})[0],
            tt(DType::Float32, {ir::kUnknownDim, 3, 4}));
}

TEST(Clip, AttributesBeforeOpset11) {
  const ir::Tensor x = f32({5}, {-2, -0.5, 0, 0.7, 3});
  expectTensor<float>(run1("Clip", {x}, attrs({{"min", -0.5f}, {"max", 0.5f}}), 6), {5}, {-0.5, -0.5, 0, 0.5, 0.5});
  // An absent bound is unbounded.
  expectTensor<float>(run1("Clip", {x}, attrs({{"min", 0.f}}), 6), {5}, {0, 0, 0, 0.7, 3});
  expectTensor<float>(run1("Clip", {x}, {}, 6), {5}, {-2, -0.5, 0, 0.7, 3});
}

TEST(Clip, InputsFromOpset11) {
  const ir::Tensor x = f32({5}, {-2, -0.5, 0, 0.7, 3});
  const ir::Tensor lo = ir::Tensor::scalar<float>(-1.f), hi = ir::Tensor::scalar<float>(1.f);
  expectTensor<float>(run1("Clip", {x, lo, hi}, {}, 11), {5}, {-1, -0.5, 0, 0.7, 1});
  expectTensor<float>(run1("Clip", {x, std::nullopt, hi}, {}, 13), {5}, {-2, -0.5, 0, 0.7, 1});
  expectTensor<float>(run1("Clip", {x, lo}, {}, 13), {5}, {-1, -0.5, 0, 0.7, 3});
  expectTensor<float>(run1("Clip", {x}, {}, 13), {5}, {-2, -0.5, 0, 0.7, 3});
  // Attributes are ignored from opset 11 on.
  expectTensor<float>(run1("Clip", {x}, attrs({{"min", 0.f}}), 12), {5}, {-2, -0.5, 0, 0.7, 3});
  // min > max: everything becomes max.
  expectTensor<float>(run1("Clip", {x, hi, lo}, {}, 13), {5}, {-1, -1, -1, -1, -1});
  expectTensor<int32_t>(run1("Clip", {tensor<int32_t>({3}, {-9, 5, 9}), ir::Tensor::scalar<int32_t>(0),
                                      ir::Tensor::scalar<int32_t>(6)},
                             {}, 12),
                        {3}, {0, 5, 6});
  expectOpError([&] { run1("Clip", {x, f32({2}, {0, 1})}, {}, 13); }, {"scalar", "[2]"});
}

}  // namespace
}  // namespace rammer::ops
