// Binary / variadic elementwise ops through the registry. Expected values
// were computed with numpy and pasted here.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "tests/core/ops/math_test_util.h"

namespace rammer::ops {
namespace {

using namespace mathtest;
using ir::DType;
using ir::Shape;
using ir::Tensor;

constexpr int64_t U = ir::kUnknownDim;

// a = [[1, -2, 3], [4.5, 5, -6]], b = [0.5, 2, -4], c = [[2], [-1]]
Tensor A() { return f32({2, 3}, {1, -2, 3, 4.5, 5, -6}); }
Tensor B() { return f32({3}, {0.5, 2, -4}); }
Tensor C() { return f32({2, 1}, {2, -1}); }

TEST(ElementwiseOps, ArithmeticWithBroadcasting) {
  expectTensor<float>(run1("Add", {A(), B()}), {2, 3}, {1.5, 0, -1, 5, 7, -10});
  expectTensor<float>(run1("Sub", {A(), C()}), {2, 3}, {-1, -4, 1, 5.5, 6, -5});
  expectTensor<float>(run1("Mul", {A(), B()}), {2, 3}, {0.5, -4, -12, 2.25, 10, 24});
  expectTensor<float>(run1("Div", {A(), B()}), {2, 3}, {2, -1, -0.75, 9, 2.5, 1.5});
  // Both operands grow: [2, 1] / [3] -> [2, 3].
  expectTensor<float>(run1("Div", {C(), B()}), {2, 3}, {4, 1, -0.5, -2, -0.5, 0.25});
  // Same shape and scalar operands.
  expectTensor<float>(run1("Add", {A(), A()}), {2, 3}, {2, -4, 6, 9, 10, -12});
  expectTensor<float>(run1("Mul", {ir::Tensor::scalar<float>(2.f), A()}), {2, 3}, {2, -4, 6, 9, 10, -12});
}

TEST(ElementwiseOps, OtherElementTypes) {
  expectTensor<double>(run1("Add", {tensor<double>({2}, {0.1, 1e-17}), tensor<double>({1}, {0.2})}), {2},
                       {0.30000000000000004, 0.2}, 1e-16);
  expectTensor<int64_t>(run1("Mul", {i64({3}, {2, -3, 4}), i64({}, {5})}), {3}, {10, -15, 20});
  expectTensor<int32_t>(run1("Sub", {tensor<int32_t>({2}, {1, 2}), tensor<int32_t>({2, 1}, {10, 20})}), {2, 2},
                        {-9, -8, -19, -18});
  expectOpError([] { run1("Add", {f32({1}, {1}), i64({1}, {1})}); }, {"int64", "float32"});
  expectOpError([] { run1("Add", {tensor<bool>({1}, {true}), tensor<bool>({1}, {true})}); }, {"Add", "bool"});
}

TEST(ElementwiseOps, IntegerDivisionTruncatesLikeC) {
  expectTensor<int32_t>(run1("Div", {tensor<int32_t>({4}, {7, -7, 7, -7}), tensor<int32_t>({4}, {2, 2, -2, -2})}),
                        {4}, {3, -3, -3, 3});
  expectOpError([] { run1("Div", {i64({2}, {1, 2}), i64({2}, {1, 0})}); }, {"division by zero"});
  const int64_t lo = std::numeric_limits<int64_t>::min();
  expectTensor<int64_t>(run1("Div", {i64({1}, {lo}), i64({1}, {-1})}), {1}, {lo});  // wraps, no UB
}

TEST(ElementwiseOps, IntegerOverflowWraps) {
  const int32_t hi = std::numeric_limits<int32_t>::max(), lo = std::numeric_limits<int32_t>::min();
  expectTensor<int32_t>(run1("Add", {tensor<int32_t>({1}, {hi}), tensor<int32_t>({1}, {1})}), {1}, {lo});
  expectTensor<int32_t>(run1("Mul", {tensor<int32_t>({1}, {hi}), tensor<int32_t>({1}, {2})}), {1}, {-2});
}

TEST(ElementwiseOps, Pow) {
  expectTensor<float>(run1("Pow", {f32({4}, {2, 3, 4, 0.5}), f32({4}, {3, 0.5, -1, 2})}), {4},
                      {8, 1.73205081, 0.25, 0.25});
  // Exponent of another type (opset 12): the result keeps the base's type.
  expectTensor<float>(run1("Pow", {f32({3}, {1.5, 2, 4}), i64({3}, {2, 3, -1})}), {3}, {2.25, 8, 0.25});
  expectTensor<int64_t>(run1("Pow", {i64({3}, {2, -3, 5}), i64({3}, {10, 3, 0})}), {3}, {1024, -27, 1});
  // An integer base with a float exponent truncates: 2^0.5 -> 1, 9^0.5 -> 3.
  expectTensor<int32_t>(run1("Pow", {tensor<int32_t>({2}, {2, 9}), f32({}, {0.5f})}), {2}, {1, 3});
}

TEST(ElementwiseOps, Mod) {
  const Tensor a = i64({5}, {-4, 7, 5, -5, 6}), b = i64({5}, {3, -3, -3, 3, 4});
  // fmod=0: the sign of the divisor (Python); fmod=1: the sign of the dividend (C).
  expectTensor<int64_t>(run1("Mod", {a, b}), {5}, {2, -2, -1, 1, 2});
  expectTensor<int64_t>(run1("Mod", {a, b}, attrs({{"fmod", int64_t{1}}})), {5}, {-1, 1, 2, -2, 2});
  expectTensor<float>(run1("Mod", {f32({3}, {5.5, -5.5, 7.25}), f32({3}, {2, 2, -2.5})}, attrs({{"fmod", int64_t{1}}})),
                      {3}, {1.5, -1.5, 2.25});
  expectOpError([] { run1("Mod", {f32({1}, {1}), f32({1}, {2})}); }, {"fmod"});
  expectOpError([] { run1("Mod", {i64({1}, {1}), i64({1}, {0})}); }, {"zero"});
}

TEST(ElementwiseOps, VariadicMaxMinSumMean) {
  // m1 = [[1, 5, 3], [7, -2, 0]], m2 = [4, 4, 4], m3 = [[2], [9]]
  const Tensor m1 = f32({2, 3}, {1, 5, 3, 7, -2, 0}), m2 = f32({3}, {4, 4, 4}), m3 = f32({2, 1}, {2, 9});
  expectTensor<float>(run1("Max", {m1, m2, m3}), {2, 3}, {4, 5, 4, 9, 9, 9});
  expectTensor<float>(run1("Min", {m1, m2, m3}), {2, 3}, {1, 2, 2, 4, -2, 0});
  expectTensor<float>(run1("Sum", {m1, m2, m3}), {2, 3}, {7, 11, 9, 20, 11, 13});
  expectTensor<float>(run1("Mean", {m1, m2, m3}), {2, 3},
                      {2.33333333, 3.66666667, 3, 6.66666667, 3.66666667, 4.33333333});
  expectTensor<float>(run1("Max", {m1}), {2, 3}, {1, 5, 3, 7, -2, 0});
  expectTensor<int64_t>(run1("Max", {i64({2}, {1, 8}), i64({2}, {3, 2})}), {2}, {3, 8});
  EXPECT_TRUE(std::isnan(run1("Max", {f32({1}, {NAN}), f32({1}, {1})}).values<float>()[0]));
  EXPECT_DOUBLE_EQ(flopsOf("Sum", {tt(DType::Float32, {2, 3}), tt(DType::Float32, {3}), tt(DType::Float32, {2, 1})}),
                   12.0);
}

TEST(ElementwiseOps, Comparisons) {
  // e1 = [[1, 2, 3], [4, 5, 6]] against e2 = [2, 5, 3]
  const Tensor e1 = f32({2, 3}, {1, 2, 3, 4, 5, 6}), e2 = f32({3}, {2, 5, 3});
  expectTensor<bool>(run1("Equal", {e1, e2}), {2, 3}, {false, false, true, false, true, false});
  expectTensor<bool>(run1("Less", {e1, e2}), {2, 3}, {true, true, false, false, false, false});
  expectTensor<bool>(run1("Greater", {e1, e2}), {2, 3}, {false, false, false, true, false, true});
  expectTensor<bool>(run1("LessOrEqual", {e1, e2}), {2, 3}, {true, true, true, false, true, false});
  expectTensor<bool>(run1("GreaterOrEqual", {e1, e2}), {2, 3}, {false, false, true, true, true, true});
  expectTensor<bool>(run1("Equal", {i64({3}, {1, 2, 3}), i64({}, {2})}), {3}, {false, true, false});
  expectTensor<bool>(run1("Equal", {tensor<bool>({2}, {true, false}), tensor<bool>({1}, {false})}), {2},
                     {false, true});
  EXPECT_EQ(inferOp("Less", {tt(DType::Int64, {U, 3}), tt(DType::Int64, {3})})[0], tt(DType::Bool, {U, 3}));
}

TEST(ElementwiseOps, Logic) {
  const Tensor p = tensor<bool>({4}, {false, false, true, true}), q = tensor<bool>({4}, {false, true, false, true});
  expectTensor<bool>(run1("And", {p, q}), {4}, {false, false, false, true});
  expectTensor<bool>(run1("Or", {p, q}), {4}, {false, true, true, true});
  expectTensor<bool>(run1("Xor", {p, q}), {4}, {false, true, true, false});
  expectTensor<bool>(run1("Not", {p}), {4}, {true, true, false, false});
  expectTensor<bool>(run1("And", {tensor<bool>({2, 1}, {true, false}), tensor<bool>({2}, {true, false})}), {2, 2},
                     {true, false, false, false});
  expectOpError([] { run1("And", {f32({1}, {1}), f32({1}, {1})}); }, {"float32"});
}

TEST(ElementwiseOps, WhereBroadcastsAllThree) {
  // cond [[T], [F]], X [1, 2, 3], Y [[10, 20, 30], [40, 50, 60]]
  const Tensor cond = tensor<bool>({2, 1}, {true, false});
  expectTensor<float>(run1("Where", {cond, f32({3}, {1, 2, 3}), f32({2, 3}, {10, 20, 30, 40, 50, 60})}), {2, 3},
                      {1, 2, 3, 40, 50, 60});
  expectTensor<int64_t>(run1("Where", {tensor<bool>({2}, {false, true}), i64({}, {7}), i64({2}, {1, 2})}), {2},
                        {1, 7});
  EXPECT_EQ(inferOp("Where", {tt(DType::Bool, {U, 1}), tt(DType::Float32, {3}), tt(DType::Float32, {1, 1})})[0],
            tt(DType::Float32, {U, 3}));
  expectOpError([] { inferOp("Where", {tt(DType::Float32, {1}), tt(DType::Float32, {3}), tt(DType::Float32, {3})}); },
                {"bool"});
}

TEST(ElementwiseOps, InferenceWithUnknownDims) {
  EXPECT_EQ(inferOp("Add", {tt(DType::Float32, {U, 3}), tt(DType::Float32, {4, 1, 1})})[0],
            tt(DType::Float32, {4, U, 3}));
  EXPECT_EQ(inferOp("Mul", {tt(DType::Float32, {U}), tt(DType::Float32, {5})})[0], tt(DType::Float32, {5}));
  EXPECT_EQ(inferOp("Sum", {tt(DType::Float32, {2, U}), tt(DType::Float32, {U, 7}), tt(DType::Float32, {1})})[0],
            tt(DType::Float32, {2, 7}));
  auto unranked = inferOp("Add", {tt(DType::Float32, {2, 3}), ir::TensorType{DType::Float32, {}, false}})[0];
  EXPECT_FALSE(unranked.rankKnown);
  EXPECT_EQ(unranked.dtype, DType::Float32);
  // Inference does not restrict the element type (compute does).
  EXPECT_EQ(inferOp("Add", {tt(DType::Float16, {2}), tt(DType::Float16, {2})})[0], tt(DType::Float16, {2}));
}

TEST(ElementwiseOps, IncompatibleShapesNameBoth) {
  expectOpError([] { inferOp("Add", {tt(DType::Float32, {2, 3}), tt(DType::Float32, {4})}); }, {"[2, 3]", "[4]"});
  expectOpError([] { run1("Sub", {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2}, {1, 2})}); }, {"[2, 3]", "[2]"});
  expectOpError([] { inferOp("Max", {tt(DType::Float32, {3}), tt(DType::Float32, {3}), tt(DType::Float32, {U, 2})}); },
                {"[3]", "[?, 2]"});
  expectOpError([] { inferOp("Add", {tt(DType::Float32, {2}), tt(DType::Int32, {2})}); }, {"int32"});
}

// Opset 6 broadcasts only with broadcast=1, B against A, optionally at `axis`.
TEST(ElementwiseOps, LegacyBroadcastAttribute) {
  std::vector<float> a(24);
  for (int i = 0; i < 24; ++i) a[static_cast<size_t>(i)] = static_cast<float>(i);
  const Tensor A3 = f32({2, 3, 4}, a);
  expectTensor<float>(run1("Add", {A3, f32({3}, {100, 200, 300})}, attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{1}}}), 6),
                      {2, 3, 4}, {100, 101, 102, 103, 204, 205, 206, 207, 308, 309, 310, 311,
                                  112, 113, 114, 115, 216, 217, 218, 219, 320, 321, 322, 323});
  // Without axis B is right-aligned, as numpy does.
  std::vector<float> b(12);
  for (int i = 0; i < 12; ++i) b[static_cast<size_t>(i)] = 10.f * static_cast<float>(i + 1);
  expectTensor<float>(run1("Add", {A3, f32({3, 4}, b)}, attrs({{"broadcast", int64_t{1}}}), 6), {2, 3, 4},
                      {10, 21, 32, 43, 54, 65, 76, 87, 98, 109, 120, 131,
                       22, 33, 44, 55, 66, 77, 88, 99, 110, 121, 132, 143});
  // The conformance case test_operator_add_size1_broadcast: [2, 3] + [2, 1] at axis 0.
  expectTensor<float>(run1("Add", {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 1}, {10, 20})},
                           attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{0}}}), 6),
                      {2, 3}, {11, 12, 13, 24, 25, 26});
  EXPECT_EQ(inferOp("Mul", {tt(DType::Float32, {2, 3, 4}), tt(DType::Float32, {3})},
                    attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{1}}}), 6)[0],
            tt(DType::Float32, {2, 3, 4}));
  expectOpError([&] { run1("Add", {A3, f32({3}, {1, 2, 3})}, attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{2}}}), 6); },
                {"[3]"});
  // The same attributes mean nothing from opset 7: numpy rules apply.
  expectOpError([&] { run1("Add", {A3, f32({3}, {1, 2, 3})}, attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{1}}}), 7); },
                {"[2, 3, 4]", "[3]"});
}

TEST(ElementwiseOps, FlopsAndCategory) {
  EXPECT_DOUBLE_EQ(flopsOf("Add", {tt(DType::Float32, {2, 3}), tt(DType::Float32, {3})}), 6.0);
  EXPECT_DOUBLE_EQ(flopsOf("Add", {tt(DType::Float32, {U, 3}), tt(DType::Float32, {3})}), 0.0);
  EXPECT_EQ(def("Add").category, OpCategory::Elementwise);
  EXPECT_EQ(def("Where").category, OpCategory::Elementwise);
}

// A million-element same-shape Add and a scalar Mul: values right, and fast
// enough that a per-element indexing path would stand out.
TEST(ElementwiseOps, LargeSameShapeAndScalar) {
  const int64_t n = 1 << 20;
  std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    x[static_cast<size_t>(i)] = static_cast<float>(i % 1000);
    y[static_cast<size_t>(i)] = 0.5f;
  }
  const Tensor a = f32({1024, 1024}, x), b = f32({1024, 1024}, y);
  const auto t0 = std::chrono::steady_clock::now();
  Tensor sum = run1("Add", {a, b});
  const auto t1 = std::chrono::steady_clock::now();
  auto s = sum.values<float>();
  for (int64_t i : {int64_t{0}, int64_t{999}, int64_t{123456}, n - 1})
    EXPECT_EQ(s[static_cast<size_t>(i)], static_cast<float>(i % 1000) + 0.5f);
  Tensor prod = run1("Mul", {a, ir::Tensor::scalar<float>(2.f)});
  EXPECT_EQ(prod.values<float>()[777777], static_cast<float>(777777 % 1000) * 2.f);
  // Generous bound (sanitizer builds are slow); a plain loop takes ~1 ms.
  EXPECT_LT(std::chrono::duration<double>(t1 - t0).count(), 2.0);
}

}  // namespace
}  // namespace rammer::ops
