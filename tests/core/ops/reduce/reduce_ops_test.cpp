// Reductions, ArgMax/ArgMin and the softmax family through the registry.
// Expected values were computed with numpy and pasted here.
#include <gtest/gtest.h>

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

// x = arange(24).reshape(2, 3, 4) * 0.5 - 5.25
Tensor X() {
  std::vector<float> v;
  for (int i = 0; i < 24; ++i) v.push_back(static_cast<float>(i) * 0.5f - 5.25f);
  return f32({2, 3, 4}, v);
}

ir::Attributes axesAttr(std::vector<int64_t> axes, int64_t keepdims = 1) {
  return attrs({{"axes", axes}, {"keepdims", keepdims}});
}

TEST(ReduceOps, AxesAttribute) {
  expectTensor<float>(run1("ReduceSum", {X()}, axesAttr({1}), 11), {2, 1, 4},
                      {-9.75, -8.25, -6.75, -5.25, 8.25, 9.75, 11.25, 12.75});
  expectTensor<float>(run1("ReduceMean", {X()}, axesAttr({-1}), 17), {2, 3, 1}, {-4.5, -2.5, -0.5, 1.5, 3.5, 5.5});
  expectTensor<float>(run1("ReduceMax", {X()}, axesAttr({0}, 0), 17), {3, 4},
                      {0.75, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75, 4.25, 4.75, 5.25, 5.75, 6.25});
  expectTensor<float>(run1("ReduceMin", {X()}, axesAttr({2, 1}, 0), 17), {2}, {-5.25, 0.75});
  expectTensor<float>(run1("ReduceL2", {X()}, axesAttr({1}, 0), 17), {2, 4},
                      {6.29980158, 5.53962995, 4.81534007, 4.14578099, 5.53962995, 6.29980158, 7.08431366, 7.88590515});
  expectTensor<float>(run1("ReduceL1", {X()}, axesAttr({2}, 0), 17), {2, 3}, {18, 10, 2.5, 6, 14, 22});
  expectTensor<float>(run1("ReduceSumSquare", {X()}, axesAttr({0}, 0), 17), {3, 4},
                      {28.125, 24.125, 21.125, 19.125, 18.125, 18.125, 19.125, 21.125, 24.125, 28.125, 33.125, 39.125});
  expectTensor<float>(run1("ReduceLogSumExp", {X()}, axesAttr({2}, 0), 17), {2, 3},
                      {-2.96266133, -0.962661328, 1.03733867, 3.03733867, 5.03733867, 7.03733867});
  const Tensor p = f32({2, 3}, {1, 2, 3, -1, 0.5, 4});
  expectTensor<float>(run1("ReduceProd", {p}, axesAttr({1}, 0), 17), {2}, {6, -2});
  expectTensor<float>(run1("ReduceLogSum", {f32({2, 3}, {0.5, 1, 2, 3, 4, 5})}, axesAttr({1}, 0), 17), {2},
                      {1.25276297, 2.48490665});
}

TEST(ReduceOps, NoAxesReducesEverything) {
  expectTensor<float>(run1("ReduceSum", {X()}, {}, 11), {1, 1, 1}, {12});
  expectTensor<float>(run1("ReduceProd", {f32({2, 3}, {1, 2, 3, -1, 0.5, 4})}, attrs({{"keepdims", int64_t{0}}})),
                      {}, {-12});
}

TEST(ReduceOps, AxesInputFromOpset13ForReduceSum) {
  expectTensor<float>(run1("ReduceSum", {X(), i64({2}, {0, 2})}, attrs({{"keepdims", int64_t{0}}}), 13), {3},
                      {-12, 4, 20});
  // Omitted axes: everything, unless noop_with_empty_axes makes it the identity.
  expectTensor<float>(run1("ReduceSum", {X()}, {}, 13), {1, 1, 1}, {12});
  expectTensor<float>(run1("ReduceSum", {X(), i64({0}, {})}, {}, 13), {1, 1, 1}, {12});
  Tensor same = run1("ReduceSum", {X(), std::nullopt}, attrs({{"noop_with_empty_axes", int64_t{1}}}), 13);
  const Tensor x = X();
  expectTensor<float>(same, {2, 3, 4}, std::vector<float>(x.values<float>().begin(), x.values<float>().end()));
  // Other reductions keep the attribute until opset 18.
  expectTensor<float>(run1("ReduceMean", {X()}, axesAttr({-1}), 13), {2, 3, 1}, {-4.5, -2.5, -0.5, 1.5, 3.5, 5.5});
  expectTensor<float>(run1("ReduceMean", {X(), i64({1}, {-1})}, {}, 18), {2, 3, 1}, {-4.5, -2.5, -0.5, 1.5, 3.5, 5.5});
}

TEST(ReduceOps, NumericallyStableLogSumExp) {
  // [[1000, 1001, 1002], [-1, 0, 1]]: exp(1000) overflows without the max shift.
  expectTensor<float>(run1("ReduceLogSumExp", {f32({2, 3}, {1000, 1001, 1002, -1, 0, 1})}, axesAttr({1}), 17), {2, 1},
                      {1002.40761, 1.40760596});
}

TEST(ReduceOps, IntegerTypes) {
  const Tensor a = i64({2, 3}, {1, 2, 3, 4, 5, 6});
  expectTensor<int64_t>(run1("ReduceSum", {a, i64({1}, {1})}, {}, 13), {2, 1}, {6, 15});
  expectTensor<int64_t>(run1("ReduceMax", {a}, axesAttr({0}, 0), 11), {3}, {4, 5, 6});
  expectTensor<int32_t>(run1("ReduceProd", {tensor<int32_t>({3}, {2, -3, 4})}, axesAttr({0}, 0), 11), {}, {-24});
  expectTensor<int64_t>(run1("ReduceMean", {a}, axesAttr({1}, 0), 11), {2}, {2, 5});
  expectOpError([&] { run1("ReduceL2", {a}, axesAttr({1}), 11); }, {"ReduceL2", "int64"});
}

TEST(ReduceOps, EmptyReductions) {
  const Tensor e = f32({2, 0}, {});
  expectTensor<float>(run1("ReduceSum", {e}, axesAttr({1}, 0), 11), {2}, {0, 0});
  expectTensor<float>(run1("ReduceProd", {e}, axesAttr({1}, 0), 11), {2}, {1, 1});
  expectTensor<float>(run1("ReduceMax", {e}, axesAttr({1}, 0), 11), {2}, {-INFINITY, -INFINITY});
  expectTensor<float>(run1("ReduceMin", {e}, axesAttr({1}, 0), 11), {2}, {INFINITY, INFINITY});
  expectTensor<float>(run1("ReduceLogSumExp", {e}, axesAttr({1}, 0), 11), {2}, {-INFINITY, -INFINITY});
}

TEST(ReduceOps, Inference) {
  EXPECT_EQ(inferOp("ReduceMean", {tt(DType::Float32, {U, 3, 4})}, axesAttr({1}), 11)[0],
            tt(DType::Float32, {U, 1, 4}));
  EXPECT_EQ(inferOp("ReduceMean", {tt(DType::Float32, {U, 3, 4})}, axesAttr({1, -1}, 0), 11)[0],
            tt(DType::Float32, {U}));
  EXPECT_EQ(inferOp("ReduceSum", {tt(DType::Float32, {U, 3, 4})}, {}, 11)[0], tt(DType::Float32, {1, 1, 1}));
  // Axes input with an unknown value: keepdims keeps the rank only.
  EXPECT_EQ(inferOp("ReduceSum", {tt(DType::Float32, {2, 3, 4}), tt(DType::Int64, {1})}, {}, 13)[0],
            tt(DType::Float32, {U, U, U}));
  EXPECT_FALSE(
      inferOp("ReduceSum", {tt(DType::Float32, {2, 3, 4}), tt(DType::Int64, {1})}, attrs({{"keepdims", int64_t{0}}}), 13)[0]
          .rankKnown);
  // A known axes value is used.
  const Tensor axes = i64({1}, {2});
  EXPECT_EQ(inferOp("ReduceSum", {tt(DType::Float32, {2, 3, 4}), tt(DType::Int64, {1})}, {}, 13, {nullptr, &axes})[0],
            tt(DType::Float32, {2, 3, 1}));
  EXPECT_FALSE(inferOp("ReduceMax", {ir::TensorType{DType::Float32, {}, false}}, axesAttr({0}), 11)[0].rankKnown);
  EXPECT_DOUBLE_EQ(flopsOf("ReduceSum", {tt(DType::Float32, {2, 3, 4})}, axesAttr({1}), 11), 24.0);
  EXPECT_EQ(def("ReduceSum").category, OpCategory::Reduction);
}

TEST(ReduceOps, BadAxes) {
  expectOpError([] { run1("ReduceSum", {X()}, axesAttr({3}), 11); }, {"3", "rank 3"});
  expectOpError([] { inferOp("ReduceMax", {tt(DType::Float32, {2, 3})}, axesAttr({1, -1}), 11); }, {"repeat"});
  expectOpError([] { run1("ReduceSum", {X(), i64({1}, {1})}, {}, 11); }, {"inputs"});
}

TEST(ReduceOps, ScalarInput) {
  // A scalar is its own reduction over any axis.
  expectTensor<float>(run1("ReduceSumSquare", {ir::Tensor::scalar<float>(-3.f)}, axesAttr({0}), 11), {}, {9});
  expectTensor<float>(run1("ReduceMax", {ir::Tensor::scalar<float>(-3.f)}, {}, 11), {}, {-3});
  expectOpError([] { run1("ArgMax", {ir::Tensor::scalar<float>(1.f)}); }, {"rank"});
}

// a = [[3, 1, 3, 2], [0, 5, 5, -1], [7, 7, 2, 7]]
Tensor argInput() { return f32({3, 4}, {3, 1, 3, 2, 0, 5, 5, -1, 7, 7, 2, 7}); }

TEST(ArgOps, FirstOrLastIndex) {
  expectTensor<int64_t>(run1("ArgMax", {argInput()}, attrs({{"axis", int64_t{1}}})), {3, 1}, {0, 1, 0});
  expectTensor<int64_t>(run1("ArgMin", {argInput()}, attrs({{"keepdims", int64_t{0}}})), {4}, {1, 0, 2, 1});
  expectTensor<int64_t>(
      run1("ArgMax", {argInput()}, attrs({{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}, {"select_last_index", int64_t{1}}})),
      {3}, {2, 2, 3});
  expectTensor<int64_t>(
      run1("ArgMin", {argInput()}, attrs({{"axis", int64_t{1}}, {"keepdims", int64_t{0}}, {"select_last_index", int64_t{1}}})),
      {3}, {1, 3, 2});
  expectTensor<int64_t>(run1("ArgMax", {i64({2, 2}, {4, 9, 8, 1})}, attrs({{"axis", int64_t{0}}})), {1, 2}, {1, 0});
  EXPECT_EQ(inferOp("ArgMax", {tt(DType::Float32, {U, 5, 6})}, attrs({{"axis", int64_t{1}}, {"keepdims", int64_t{0}}}))[0],
            tt(DType::Int64, {U, 6}));
  expectOpError([] { inferOp("ArgMax", {tt(DType::Float32, {2, 3})}, attrs({{"axis", int64_t{2}}})); }, {"axis 2"});
}

// s: a fixed [2, 3, 4] tensor, with numpy results for both Softmax conventions.
Tensor S() {
  return f32({2, 3, 4}, {0.1, -0.3, 0.8, 1.5, 2.0, 0.0, -1.0, 0.5, 0.3, 0.3, -2.0, 1.0,
                         1.2, -0.7, 0.4, 0.9, -1.1, 2.2, 0.6, 0.0, 0.5, 1.5, -0.5, 0.25});
}

TEST(SoftmaxOps, Opset13NormalisesOneAxis) {
  const std::vector<float> lastAxis = {0.129211108, 0.0866127956, 0.260199218, 0.523976879, 0.710099923, 0.0961015742,
                                       0.0353537934, 0.15844471,  0.243071753, 0.243071753, 0.0243700929, 0.489486401,
                                       0.427402336, 0.0639259772, 0.192044249, 0.316627438, 0.0273293096, 0.740969704,
                                       0.149599203, 0.0821017834, 0.205551449, 0.558746769, 0.0756181522, 0.16008363};
  expectTensor<float>(run1("Softmax", {S()}, {}, 13), {2, 3, 4}, lastAxis);
  expectTensor<float>(run1("Softmax", {S()}, attrs({{"axis", int64_t{1}}}), 13), {2, 3, 4},
                      {0.112267501, 0.239694479, 0.815588206, 0.506480391, 0.750608663, 0.323553704,
                       0.134815824, 0.186323723, 0.137123836, 0.436751817, 0.0495959699, 0.307195886,
                       0.626235191, 0.0354620506, 0.380521498, 0.518506687, 0.0627856162, 0.644492464,
                       0.464770007, 0.210809087, 0.310979193, 0.320045486, 0.154708496, 0.270684226});
  expectTensor<float>(run1("LogSoftmax", {S()}, {}, 13), {2, 3, 4},
                      {-2.04630772, -2.44630772, -1.34630772, -0.646307719, -0.342349582, -2.34234958,
                       -3.34234958, -1.84234958, -1.4143986, -1.4143986, -3.7143986, -0.714398599,
                       -0.850029471, -2.75002947, -1.65002947, -1.15002947, -3.59979554, -0.29979554,
                       -1.89979554, -2.49979554, -1.58205892, -0.582058916, -2.58205892, -1.83205892});
  expectTensor<float>(run1("Hardmax", {S()}, {}, 13), {2, 3, 4},
                      {0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0});
}

TEST(SoftmaxOps, BeforeOpset13CoercesTo2D) {
  // Default axis 1: each batch row of 12 values is one distribution.
  const std::vector<float> rows = {0.0450865462, 0.0302224157, 0.0907931544, 0.18283496,  0.301443888, 0.040795994,
                                   0.0150080075, 0.0672612231, 0.0550688318, 0.0550688318, 0.0055211374, 0.110895009,
                                   0.118706606,  0.0177547832, 0.0533383164, 0.0879400169, 0.0119013871, 0.322678011,
                                   0.0651475668, 0.0357537427, 0.0589479561, 0.160237158, 0.0216857412, 0.0459087144};
  expectTensor<float>(run1("Softmax", {S()}, {}, 11), {2, 3, 4}, rows);
  expectTensor<float>(run1("Softmax", {S()}, attrs({{"axis", int64_t{1}}}), 6), {2, 3, 4}, rows);
  expectTensor<float>(run1("LogSoftmax", {S()}, {}, 12), {2, 3, 4},
                      {-3.09917139, -3.49917139, -2.39917139, -1.69917139, -1.19917139, -3.19917139,
                       -4.19917139, -2.69917139, -2.89917139, -2.89917139, -5.19917139, -2.19917139,
                       -2.13110032, -4.03110032, -2.93110032, -2.43110032, -4.43110032, -1.13110032,
                       -2.73110032, -3.33110032, -2.83110032, -1.83110032, -3.83110032, -3.08110032});
  expectTensor<float>(run1("Hardmax", {S()}, {}, 11), {2, 3, 4},
                      {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  // axis = -1 (the last dim) coerces to [6, 4], which matches opset 13's last-axis result.
  Tensor last = run1("Softmax", {S()}, attrs({{"axis", int64_t{-1}}}), 11);
  Tensor last13 = run1("Softmax", {S()}, {}, 13);
  expectTensor<float>(last, {2, 3, 4}, std::vector<float>(last13.values<float>().begin(), last13.values<float>().end()));
}

TEST(SoftmaxOps, StableForLargeInputs) {
  expectTensor<float>(run1("Softmax", {f32({1, 3}, {1000, 1001, 1002})}), {1, 3}, {0.0900305732, 0.244728471, 0.665240956});
  Tensor ls = run1("LogSoftmax", {f32({1, 3}, {1000, 1001, 1002})});
  for (float v : ls.values<float>()) EXPECT_TRUE(std::isfinite(v));
}

TEST(SoftmaxOps, InferenceAndErrors) {
  EXPECT_EQ(inferOp("Softmax", {tt(DType::Float32, {U, 10})})[0], tt(DType::Float32, {U, 10}));
  expectOpError([] { inferOp("Softmax", {tt(DType::Float32, {2, 3})}, attrs({{"axis", int64_t{2}}}), 13); },
                {"axis 2", "rank 2"});
  expectOpError([] { run1("Softmax", {i64({2}, {1, 2})}); }, {"int64"});
  EXPECT_EQ(def("Softmax").category, OpCategory::Reduction);
  EXPECT_GT(flopsOf("Softmax", {tt(DType::Float32, {2, 3})}), 6.0);
}

}  // namespace
}  // namespace rammer::ops
