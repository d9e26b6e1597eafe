// Gemm and MatMul against torch 1.13 (torch.matmul, float64) on the pattern()
// inputs of nn_test_util.h, plus small cases worked out by hand.
#include "tests/core/ops/nn_test_util.h"

namespace rammer::ops {
namespace {

using namespace nntest;
using ir::Shape;

TEST(MatMulOps, TwoByTwoByHand) {
  ir::Tensor a = ir::Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ir::Tensor b = ir::Tensor::fromVector<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  auto y = run("MatMul", {&a, &b});
  expectTensor(y[0], {2, 2}, {58, 64, 139, 154});
}

TEST(MatMulOps, BatchedBroadcast) {
  // [2,1,2,3] x [3,3,2] -> [2,3,2,2]: A's batch dim 1 and B's missing leading dim broadcast.
  ir::Tensor a = patternTensor({2, 1, 2, 3}, 7, 3), b = patternTensor({3, 3, 2}, 5, 1);
  auto y = run("MatMul", {&a, &b});
  expectTensor(y[0], {2, 3, 2, 2},
               {1.9375, 0.0, -1.125, -2.0625, -1.5625, -0.25, 2.1875, 0.4375, -0.1875, 1.9375, -0.1875, -1.125,
                -1.75, 0.75, 1.6875, 1.125, 1.875, -0.5, -1.6875, -0.625, -0.1875, -1.75, -0.1875, 1.6875});
}

TEST(MatMulOps, SharedRightOperand) {
  ir::Tensor a = patternTensor({2, 3, 4}, 7, 3), b = patternTensor({4, 5}, 5, 1);
  auto y = run("MatMul", {&a, &b});
  expectTensor(y[0], {2, 3, 5},
               {0.25,   -0.9375, 0.3125, -1.6875, -0.4375, -3.8125, 0.75,    0.4375, 0.9375,  0.625,
                1.0625, 0.8125,  -1.0625, 1.9375, 0.0625,  1.0625,  0.0625,  0.6875, -0.3125, 0.3125,
                1.0625, -0.6875, 2.4375, -2.5625, 0.5625,  0.25,    0.1875,  -2.3125, 1.6875, -0.8125});
}

TEST(MatMulOps, OneDimensionalOperands) {
  ir::Tensor v = ir::Tensor::fromVector<float>({3}, {1, 2, 3});
  ir::Tensor m = ir::Tensor::fromVector<float>({3, 2}, {1, 0, 0, 1, 1, 1});
  ir::Tensor mt = ir::Tensor::fromVector<float>({2, 3}, {1, 0, 1, 0, 1, 1});
  expectTensor(run("MatMul", {&v, &m})[0], {2}, {4, 5});   // [3] x [3,2] -> [2]
  expectTensor(run("MatMul", {&mt, &v})[0], {2}, {4, 5});  // [2,3] x [3] -> [2]
  expectTensor(run("MatMul", {&v, &v})[0], {}, {14});      // [3] x [3] -> scalar
  // [3] x [2,3,2] -> [2,2] (torch.matmul)
  ir::Tensor a = patternTensor({3}, 7, 3), b = patternTensor({2, 3, 2}, 5, 1);
  expectTensor(run("MatMul", {&a, &b})[0], {2, 2}, {1.9375, 0.0, -1.5625, -0.25});
}

TEST(MatMulOps, IntegerTypes) {
  ir::Tensor a = ir::Tensor::fromVector<int64_t>({2, 2}, {1, 2, 3, 4});
  ir::Tensor b = ir::Tensor::fromVector<int64_t>({2, 2}, {5, 6, 7, -8});
  auto y = run("MatMul", {&a, &b});
  ASSERT_EQ(y[0].dtype(), ir::DType::Int64);
  EXPECT_EQ(y[0].toInt64s(), (std::vector<int64_t>{19, -10, 43, -14}));
  ir::Tensor c = ir::Tensor::fromVector<int32_t>({1, 2}, {3, -1});
  ir::Tensor d = ir::Tensor::fromVector<int32_t>({2, 1}, {2, 5});
  EXPECT_EQ(run("MatMul", {&c, &d})[0].toInt64s(), (std::vector<int64_t>{1}));
}

TEST(MatMulOps, InferenceAndErrors) {
  EXPECT_EQ(infer("MatMul", {f32({-1, 8, 16}), f32({16, 4})})[0], f32({-1, 8, 4}));
  EXPECT_EQ(infer("MatMul", {f32({-1, 1, 8, 16}), f32({5, 16, 4})})[0], f32({-1, 5, 8, 4}));
  EXPECT_EQ(infer("MatMul", {f32({16}), f32({-1, 16, 4})})[0], f32({-1, 4}));
  EXPECT_FALSE(infer("MatMul", {ir::TensorType{ir::DType::Float32, {}, false}, f32({16, 4})})[0].rankKnown);
  std::string e = inferError("MatMul", {f32({2, 8, 16}), f32({15, 4})});
  EXPECT_NE(e.find("inner dims differ: A [2, 8, 16] and B [15, 4]"), std::string::npos) << e;
  e = inferError("MatMul", {f32({2, 8, 16}), f32({3, 16, 4})});
  EXPECT_NE(e.find("do not broadcast"), std::string::npos) << e;
  ir::TensorType i64{ir::DType::Int64, {2, 2}, true};
  e = inferError("MatMul", {f32({2, 2}), i64});
  EXPECT_NE(e.find("B has type"), std::string::npos) << e;
  EXPECT_DOUBLE_EQ(flops("MatMul", {f32({4, 8, 16}), f32({16, 3})}), 2.0 * 4 * 8 * 3 * 16);
  EXPECT_EQ(def("MatMul").category, OpCategory::MatMul);
}

TEST(GemmOps, TransposesAlphaBetaAndBroadcastC) {
  // A stored [K=3, M=2] (transA), B stored [N=4, K=3] (transB); alpha 0.5, beta 2.
  ir::Tensor a = patternTensor({3, 2}, 7, 3), b = patternTensor({4, 3}, 5, 1);
  ir::Tensor cN = patternTensor({4}, 3, 2), cM1 = patternTensor({2, 1}, 3, 2);
  nntest::Attrs attrs{{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 0.5f}, {"beta", 2.0f}};
  expectTensor(run("Gemm", {&a, &b, &cN}, attrs)[0], {2, 4},
               {-1.6875, -0.15625, 0.96875, 2.09375, -1.6875, -1.6875, 0.75, 3.1875});
  expectTensor(run("Gemm", {&a, &b, &cM1}, attrs)[0], {2, 4},
               {-1.6875, -1.65625, -2.03125, -2.40625, -0.1875, -1.6875, -0.75, 0.1875});
}

TEST(GemmOps, ByHandCasesAndOptionalC) {
  ir::Tensor a = ir::Tensor::fromVector<float>({2, 2}, {1, 2, 3, 4});
  ir::Tensor b = ir::Tensor::fromVector<float>({2, 2}, {1, 0, 0, 1});
  ir::Tensor s = ir::Tensor::scalar<float>(10);
  ir::Tensor full = ir::Tensor::fromVector<float>({2, 2}, {1, 1, 2, 2});
  expectTensor(run("Gemm", {&a, &b})[0], {2, 2}, {1, 2, 3, 4});               // no C
  expectTensor(run("Gemm", {&a, &b, nullptr})[0], {2, 2}, {1, 2, 3, 4});      // omitted C
  expectTensor(run("Gemm", {&a, &b, &s})[0], {2, 2}, {11, 12, 13, 14});       // scalar C
  expectTensor(run("Gemm", {&a, &b, &full}, {{"transA", int64_t{1}}})[0], {2, 2}, {2, 4, 4, 6});
  expectTensor(run("Gemm", {&a, &b, &full}, {{"beta", 0.0f}})[0], {2, 2}, {1, 2, 3, 4});
  // Opset 6 models with broadcast=1 behave the same.
  expectTensor(run("Gemm", {&a, &b, &s}, {{"broadcast", int64_t{1}}}, 1, 6)[0], {2, 2}, {11, 12, 13, 14});
  ir::Tensor ai = ir::Tensor::fromVector<int64_t>({1, 2}, {2, 3});
  ir::Tensor bi = ir::Tensor::fromVector<int64_t>({2, 1}, {4, 5});
  EXPECT_EQ(run("Gemm", {&ai, &bi})[0].toInt64s(), (std::vector<int64_t>{23}));
}

TEST(GemmOps, InferenceAndErrors) {
  EXPECT_EQ(infer("Gemm", {f32({-1, 512}), f32({1000, 512}), f32({1000})}, {{"transB", int64_t{1}}})[0],
            f32({-1, 1000}));
  std::string e = inferError("Gemm", {f32({4, 512}), f32({1000, 511})}, {{"transB", int64_t{1}}});
  EXPECT_NE(e.find("inner dims differ"), std::string::npos) << e;
  e = inferError("Gemm", {f32({4, 8}), f32({8, 3}), f32({2, 3})});
  EXPECT_NE(e.find("C [2, 3] does not broadcast to [4, 3]"), std::string::npos) << e;
  e = inferError("Gemm", {f32({4, 8, 1}), f32({8, 3})});
  EXPECT_NE(e.find("A [4, 8, 1] must be 2-D"), std::string::npos) << e;
  EXPECT_DOUBLE_EQ(flops("Gemm", {f32({4, 8}), f32({8, 3}), f32({3})}), 2.0 * 4 * 3 * 8 + 4 * 3);
  EXPECT_EQ(def("Gemm").category, OpCategory::MatMul);
}

}  // namespace
}  // namespace rammer::ops
