// Conv and ConvTranspose against torch 1.13 (torch.nn.functional.conv*d /
// conv_transpose*d, float64, asymmetric pads applied with F.pad first) on the
// pattern() inputs of nn_test_util.h.
#include <chrono>
#include <cstdio>
#include <ctime>

#include "tests/core/ops/nn_test_util.h"

namespace rammer::ops {
namespace {

using namespace nntest;
using I = std::vector<int64_t>;
using ir::Shape;

TEST(ConvOps, Conv2dPadsAndBias) {
  ir::Tensor x = patternTensor({1, 2, 5, 5}, 7, 3), w = patternTensor({3, 2, 3, 3}, 5, 1),
             b = patternTensor({3}, 3, 2);
  auto y = run("Conv", {&x, &w, &b}, {{"pads", I{1, 1, 1, 1}}});
  expectTensor(y[0], {1, 3, 5, 5},
               {-1.375,  2.0,     -6.3125, 4.875,   -7.375,  5.5,     -7.375,  4.375,   -0.9375, -0.375,
                -1.5625, -2.25,   0.5625,  -3.125,  -0.5625, -10.25,  6.125,   -12.1875, 6.0625, -7.25,
                1.1875,  3.1875,  -1.8125, 2.9375,  -3.125,  1.875,   0.625,   -1.5625, 5.1875,  -6.5,
                5.8125,  -11.625, 6.0625,  -3.875,  0.4375,  -4.75,   0.4375,  -1.375,  0.875,   0.0,
                -4.75,   6.8125,  -6.375,  6.4375,  -6.9375, 3.125,   0.25,    0.5625,  0.0625,  -2.75,
                4.3125,  -1.5625, 2.375,   4.6875,  -1.5625, 5.3125,  -8.5625, 10.1875, -9.25,   6.125,
                -8.75,   7.1875,  -4.125,  -0.8125, -1.0625, -0.0625, 8.3125,  -4.625,  8.4375,  -4.1875,
                4.25,    -5.125,  6.1875,  -4.4375, 4.125});
}

TEST(ConvOps, Conv2dGroupsDilationStrideAsymmetricPads) {
  // pads [top 0, left 1, bottom 2, right 1], group 2, dilation 2, stride 2.
  ir::Tensor x = patternTensor({1, 4, 6, 6}, 7, 3), w = patternTensor({4, 2, 3, 3}, 5, 1);
  auto y = run("Conv", {&x, &w},
               {{"pads", I{0, 1, 2, 1}}, {"group", int64_t{2}}, {"dilations", I{2, 2}}, {"strides", I{2, 2}},
                {"kernel_shape", I{3, 3}}});
  expectTensor(y[0], {1, 4, 2, 2},
               {0.375, -2.0, 0.1875, -0.25, -1.25, -3.375, 3.5625, 3.625, -0.625, -1.0625, 1.0, 1.375, 0.0, 0.9375,
                1.0, 1.8125});
}

TEST(ConvOps, DepthwiseWithMultiplier) {
  ir::Tensor x = patternTensor({1, 3, 5, 5}, 7, 3), w = patternTensor({6, 1, 3, 3}, 5, 1),
             b = patternTensor({6}, 3, 2);
  auto y = run("Conv", {&x, &w, &b}, {{"pads", I{1, 1, 1, 1}}, {"group", int64_t{3}}, {"strides", I{2, 2}}});
  expectTensor(y[0], {1, 6, 3, 3},
               {-1.375, -5.625, -3.375, -1.0,   -0.5,    -0.625, -0.5625, -2.25,  -3.75,  -0.4375, 2.375,
                2.25,   2.375,  -1.8125, -2.0,  0.25,    0.6875, 1.75,    -2.5,   1.875,  2.25,    3.875,
                -1.375, 3.0,    -2.5,   0.375,  1.875,   0.9375, 0.625,   -2.625, 0.4375, 2.125,   1.3125,
                3.25,   2.1875, 1.75,   0.6875, 0.0,     -3.25,  -5.5,    -4.9375, -0.3125, -0.125, 1.75,
                0.4375, -3.9375, -4.0,  0.875,  2.9375,  3.375,  0.125,   0.0,    -4.875, -2.875});
}

TEST(ConvOps, AutoPadSameUpperVersusLower) {
  // k=2 on 4x4, stride 1: one pad per dim, at the end (UPPER) or the beginning (LOWER).
  ir::Tensor x = patternTensor({1, 1, 4, 4}, 7, 3), w = patternTensor({1, 1, 2, 2}, 5, 1);
  auto upper = run("Conv", {&x, &w}, {{"auto_pad", std::string("SAME_UPPER")}});
  expectTensor(upper[0], {1, 1, 4, 4},
               {-0.5, 0.625, 1.75, -3.4375, 1.5625, -3.8125, 1.375, 0.625, 1.1875, -0.125, 1.0, 0.625, -0.9375,
                0.9375, -1.25, 0.625});
  auto lower = run("Conv", {&x, &w}, {{"auto_pad", std::string("SAME_LOWER")}});
  expectTensor(lower[0], {1, 1, 4, 4},
               {0.5625, -1.6875, 1.625, -1.5625, 0.1875, -0.5, 0.625, 1.75, -0.1875, 1.5625, -3.8125, 1.375,
                -0.5625, 1.1875, -0.125, 1.0});
  // SAME keeps ceil(in / stride); VALID uses no padding.
  EXPECT_EQ(infer("Conv", {f32({1, 1, 7, 8}), f32({1, 1, 3, 3})},
                  {{"auto_pad", std::string("SAME_LOWER")}, {"strides", I{2, 3}}})[0]
                .shape,
            (Shape{1, 1, 4, 3}));
  EXPECT_EQ(infer("Conv", {f32({1, 1, 7, 8}), f32({1, 1, 3, 3})},
                  {{"auto_pad", std::string("VALID")}, {"strides", I{2, 3}}, {"pads", I{5, 5, 5, 5}}})[0]
                .shape,
            (Shape{1, 1, 3, 2}));
}

TEST(ConvOps, Conv1dBatchStrideDilation) {
  ir::Tensor x = patternTensor({2, 2, 7}, 7, 3), w = patternTensor({3, 2, 3}, 5, 1);
  auto y = run("Conv", {&x, &w}, {{"pads", I{1, 2}}, {"strides", I{2}}, {"dilations", I{2}}});
  expectTensor(y[0], {2, 3, 3},
               {0.9375, -0.4375, -1.5625, -0.125, -0.0625, 2.4375, -1.1875, -0.5, -0.875, 0.5625, 2.1875, 0.6875,
                -1.625, -1.5625, -1.3125, 1.0625, -1.25, -0.875});
}

TEST(ConvOps, Conv3d) {
  ir::Tensor x = patternTensor({1, 2, 3, 4, 4}, 7, 3), w = patternTensor({2, 2, 2, 3, 3}, 5, 1),
             b = patternTensor({2}, 3, 2);
  auto y = run("Conv", {&x, &w, &b}, {{"pads", I{1, 1, 1, 1, 1, 1}}, {"strides", I{1, 2, 1}}});
  expectTensor(y[0], {1, 2, 4, 2, 4},
               {3.625,   -7.25,   4.875,   -5.1875, -5.625, 5.8125,  -5.8125, 5.3125,  -8.5625, 5.6875,  -8.875,
                2.8125,  14.5,    -11.8125, 5.4375, -9.5,   -2.25,   -1.4375, -5.4375, -0.8125, -7.9375, 6.625,
                -8.625,  3.125,   6.375,   -5.0,    7.3125, -3.1875, -1.0,    -3.875,  1.4375,  -4.1875, -2.625,
                -1.125,  -1.125,  2.1875,  -5.25,   6.25,   -2.4375, -0.6875, 4.3125,  -1.3125, 5.375,   0.6875,
                -0.75,   -6.9375, -0.0625, -5.0,    -3.75,  7.375,   -3.8125, -0.25,   3.1875,  -2.5625, 5.125,
                0.6875,  -1.25,   -1.75,   1.6875,  -2.0625, -3.5,   5.25,    -5.1875, -0.0625});
}

TEST(ConvOps, PointwiseBatch) {
  ir::Tensor x = patternTensor({2, 3, 2, 2}, 7, 3), w = patternTensor({2, 3, 1, 1}, 5, 1);
  auto y = run("Conv", {&x, &w});
  expectTensor(y[0], {2, 2, 2, 2},
               {1.25, -2.8125, 1.25, -2.8125, 0.0625, 1.875, -0.375, -0.1875, -2.8125, 1.25, -2.8125, 1.25, 2.3125,
                0.0625, 1.875, -0.375});
}

TEST(ConvOps, InferUnknownDimsPropagate) {
  auto t = infer("Conv", {f32({-1, 3, 224, -1}), f32({64, 3, 7, 7}), f32({64})},
                 {{"pads", I{3, 3, 3, 3}}, {"strides", I{2, 2}}});
  EXPECT_EQ(t[0], f32({-1, 64, 112, -1}));
  // Unknown rank of X: the rank still follows from W.
  auto u = infer("Conv", {ir::TensorType{ir::DType::Float32, {}, false}, f32({8, 4, 3, 3})});
  EXPECT_EQ(u[0], f32({-1, 8, -1, -1}));
  auto v = infer("ConvTranspose", {f32({-1, 4, -1, 5}), f32({4, 3, 3, 3})}, {{"strides", I{2, 2}}});
  EXPECT_EQ(v[0], f32({-1, 3, -1, 11}));
}

TEST(ConvOps, ErrorsNameTheProblem) {
  std::string e = inferError("Conv", {f32({1, 3, 5, 5}), f32({4, 2, 3, 3})});
  EXPECT_NE(e.find("X has 3 channels"), std::string::npos) << e;
  EXPECT_NE(e.find("W [4, 2, 3, 3]"), std::string::npos) << e;
  e = inferError("Conv", {f32({1, 3, 5, 5}), f32({4, 1, 3, 3})}, {{"group", int64_t{2}}});
  EXPECT_NE(e.find("group 2 does not divide the 3 channels of X"), std::string::npos) << e;
  e = inferError("Conv", {f32({1, 4, 5, 5}), f32({3, 2, 3, 3})}, {{"group", int64_t{2}}});
  EXPECT_NE(e.find("does not divide the 3 output channels of W"), std::string::npos) << e;
  e = inferError("Conv", {f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}, {{"pads", I{1, 1}}});
  EXPECT_NE(e.find("pads [1, 1] has 2 entries, expected 4"), std::string::npos) << e;
  e = inferError("Conv", {f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}, {{"kernel_shape", I{5, 5}}});
  EXPECT_NE(e.find("kernel_shape [5, 5] does not match"), std::string::npos) << e;
  e = inferError("Conv", {f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}, {{"auto_pad", std::string("SAME")}});
  EXPECT_NE(e.find("auto_pad 'SAME'"), std::string::npos) << e;
  e = inferError("Conv", {f32({1, 3, 2, 2}), f32({4, 3, 3, 3})});
  EXPECT_NE(e.find("smaller than the kernel"), std::string::npos) << e;
  e = inferError("Conv", {f32({1, 3, 5, 5}), f32({4, 3, 3, 3}), f32({3})});
  EXPECT_NE(e.find("B [3] must be [4]"), std::string::npos) << e;
  e = inferError("Conv", {f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}, {{"strides", I{0, 1}}});
  EXPECT_NE(e.find("strides [0, 1] must be positive"), std::string::npos) << e;
  e = inferError("ConvTranspose", {f32({1, 3, 5, 5}), f32({4, 2, 3, 3})});
  EXPECT_NE(e.find("X has 3 channels but W [4, 2, 3, 3] expects 4"), std::string::npos) << e;
}

TEST(ConvOps, Flops) {
  // 2 * N*M*OH*OW * C/group*KH*KW
  EXPECT_DOUBLE_EQ(flops("Conv", {f32({1, 64, 56, 56}), f32({64, 64, 3, 3})}, {{"pads", I{1, 1, 1, 1}}}),
                   2.0 * 64 * 56 * 56 * 64 * 9);
  EXPECT_DOUBLE_EQ(flops("Conv", {f32({2, 8, 10, 10}), f32({8, 1, 3, 3})}, {{"group", int64_t{8}}}),
                   2.0 * 2 * 8 * 8 * 8 * 9);
  EXPECT_DOUBLE_EQ(flops("Conv", {f32({-1, 8, 10, 10}), f32({8, 8, 3, 3})}), 0.0);  // unknown batch
  // ConvTranspose: every input element times M/group * kernel.
  EXPECT_DOUBLE_EQ(flops("ConvTranspose", {f32({1, 4, 5, 5}), f32({4, 6, 3, 3})}), 2.0 * 100 * 54);
  EXPECT_EQ(def("Conv").category, OpCategory::Convolution);
  EXPECT_EQ(def("ConvTranspose").category, OpCategory::Convolution);
}

TEST(ConvTransposeOps, StridePadsOutputPaddingBias) {
  ir::Tensor x = patternTensor({1, 2, 3, 3}, 7, 3), w = patternTensor({2, 3, 3, 3}, 5, 1),
             b = patternTensor({3}, 3, 2);
  auto y = run("ConvTranspose", {&x, &w, &b},
               {{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}, {"output_padding", I{1, 1}}});
  expectTensor(
      y[0], {1, 3, 6, 6},
      {0.5,     -0.0625, -1.25,   -2.75,   0.25,    0.0,     0.4375,  1.0,     -1.4375, -4.375,  0.75,    0.375,
       -1.5,    -3.25,   0.0,     -1.0625, -1.75,   -3.5,    -1.125,  -0.5,    1.0625,  -3.4375, -0.8125, -1.75,
       -0.25,   0.875,   -3.625,  0.625,   -0.5,    -1.3125, -0.5,    0.5,     -3.75,   0.5,     -0.5,    -1.3125,
       0.6875,  -1.6875, -1.5,    1.25,    0.375,   -1.5,    1.1875,  0.875,   -0.75,   1.0625,  1.375,   1.0,
       -1.8125, 1.4375,  0.0625,  -1.3125, -2.125,  1.0,     -0.5625, 0.625,   -3.3125, 3.25,    -0.375,  -1.3125,
       -0.25,   -3.5625, 1.625,   1.8125,  -0.5625, -0.5625, -0.5,    -2.3125, 1.5,     -2.375,  -0.5625, 0.25,
       -1.5625, -0.875,  1.5,     2.0,     -1.125,  0.25,    1.9375,  2.375,   -0.0625, -3.25,   2.0,     1.625,
       1.9375,  2.0625,  -0.6875, -0.75,   2.375,   2.25,    0.0,     0.9375,  2.875,   -2.25,   0.0625,  -0.875,
       -0.25,   2.5625,  2.0,     -2.6875, 0.1875,  1.0,     1.125,   2.1875,  -2.1875, 2.0625,  1.0,     0.1875});
}

TEST(ConvTransposeOps, GroupsAndDilation) {
  ir::Tensor x = patternTensor({1, 4, 3, 3}, 7, 3), w = patternTensor({4, 1, 2, 2}, 5, 1);
  auto y = run("ConvTranspose", {&x, &w}, {{"group", int64_t{2}}, {"dilations", I{2, 2}}});
  expectTensor(y[0], {1, 2, 5, 5},
               {0.3125,  -1.0,   2.0,     -0.75,   1.5,    -1.1875, -0.0625, -2.5,   1.125,   -1.5,
                -0.875,  3.625,  -0.75,   -2.125,  -0.25,  1.375,   -0.125,  1.4375, -0.5625, -0.125,
                0.125,   -2.1875, -0.125, 2.375,   -0.4375, -0.75,  -0.375,  1.5625, 0.625,   -1.9375,
                -0.4375, 2.375,  -0.125,  -2.1875, 0.125,  2.125,   -0.5625, -0.3125, -0.75,  3.6875,
                0.375,   -1.875, 0.3125,  2.5,     -0.25,  -1.5,    1.125,   -2.5,   -0.0625, -1.1875});
}

TEST(ConvTransposeOps, AutoPadSameUpperAndLower) {
  // Stride 2 on 3x3 with k=3: the natural output is 7x7 (torch, padding 0);
  // SAME wants 6x6, cropping the last row/col (UPPER) or the first (LOWER).
  ir::Tensor x = patternTensor({1, 1, 3, 3}, 7, 3), w = patternTensor({1, 2, 3, 3}, 5, 1);
  const std::vector<double> full = {
      0.9375,  0.0,     -2.1875, 0.0,     1.875,   0.0,     -0.625,  0.5625,  -0.375,  0.375,   0.5,     -1.125,
      -0.25,   0.75,    -1.375,  -0.75,   2.375,   1.0,     -3.0625, -0.5,    2.375,   -0.9375, 0.625,   -1.6875,
      -0.125,  -0.75,   0.75,    -2.25,   -0.3125, 1.25,    0.6875,  -0.25,   -2.3125, 1.5,     -1.1875, 0.0,
      0.0,     1.125,   -0.75,   2.0625,  0.125,   -0.375,  0.0,     0.0,     0.375,   -1.5,    1.4375,  0.25,
      -0.25,   -0.1875, -1.125,  0.625,   1.5,     -0.625,  -0.75,   0.25,    -0.5625, 0.9375,  0.75,    -1.25,
      -0.375,  0.625,   0.0,     -0.625,  2.4375,  0.1875,  -1.125,  0.375,   2.625,   -1.0,    0.9375,  -1.5625,
      -0.1875, 0.3125,  1.125,   -1.875,  0.0,     1.5625,  -0.9375, -0.0625, -2.0625, 2.5625,  -0.75,   0.625,
      0.0,     0.0,     -1.125,  1.875,   0.1875,  -0.3125, 0.0,     0.0,     0.0,     -1.875,  1.125,   -0.4375,
      -0.1875, 0.125};
  auto crop = [&](int64_t off) {
    std::vector<double> v;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t h = 0; h < 6; ++h)
        for (int64_t ww = 0; ww < 6; ++ww) v.push_back(full[static_cast<size_t>((c * 7 + h + off) * 7 + ww + off)]);
    return v;
  };
  auto natural = run("ConvTranspose", {&x, &w}, {{"strides", I{2, 2}}});
  expectTensor(natural[0], {1, 2, 7, 7}, full);
  auto upper = run("ConvTranspose", {&x, &w}, {{"strides", I{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}});
  expectTensor(upper[0], {1, 2, 6, 6}, crop(0));
  auto lower = run("ConvTranspose", {&x, &w}, {{"strides", I{2, 2}}, {"auto_pad", std::string("SAME_LOWER")}});
  expectTensor(lower[0], {1, 2, 6, 6}, crop(1));
  // output_shape 6x6 without auto_pad: the odd pad goes to the beginning.
  auto shaped = run("ConvTranspose", {&x, &w}, {{"strides", I{2, 2}}, {"output_shape", I{6, 6}}});
  expectTensor(shaped[0], {1, 2, 6, 6}, crop(1));
}

TEST(ConvTransposeOps, OutputShapeLargerThanNatural) {
  // ONNX backend test "convtranspose_output_shape": strides [3, 2] give a
  // natural 9x7 output; output_shape [10, 8] appends a zero row and column.
  ir::Tensor x = ir::Tensor::fromVector<float>({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  ir::Tensor w = ir::Tensor::fromVector<float>({1, 2, 3, 3}, std::vector<float>(18, 1.0f));
  const std::vector<double> plane = {
      0, 0, 1, 1, 3, 2, 2, 0,  0, 0, 1, 1, 3, 2, 2, 0,  0, 0, 1, 1, 3, 2, 2, 0,  3, 3, 7,  4, 9,  5, 5, 0,
      3, 3, 7, 4, 9, 5, 5, 0,  3, 3, 7, 4, 9, 5, 5, 0,  6, 6, 13, 7, 15, 8, 8, 0, 6, 6, 13, 7, 15, 8, 8, 0,
      6, 6, 13, 7, 15, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  std::vector<double> both = plane;
  both.insert(both.end(), plane.begin(), plane.end());
  auto a = run("ConvTranspose", {&x, &w}, {{"strides", I{3, 2}}, {"output_shape", I{10, 8}}});
  expectTensor(a[0], {1, 2, 10, 8}, both);
  // The same output from output_padding [1, 1].
  auto b = run("ConvTranspose", {&x, &w}, {{"strides", I{3, 2}}, {"output_padding", I{1, 1}}});
  expectTensor(b[0], {1, 2, 10, 8}, both);
  // output_shape given with N and C (older exporters) means the same.
  auto c = run("ConvTranspose", {&x, &w}, {{"strides", I{3, 2}}, {"output_shape", I{1, 2, 10, 8}}});
  expectTensor(c[0], {1, 2, 10, 8}, both);
}

TEST(ConvTransposeOps, OneAndThreeDims) {
  ir::Tensor x1 = patternTensor({1, 1, 4}, 7, 3), w1 = patternTensor({1, 2, 3}, 5, 1);
  auto y1 = run("ConvTranspose", {&x1, &w1}, {{"strides", I{3}}});
  expectTensor(y1[0], {1, 2, 12},
               {0.9375, 0.0, -0.9375, -1.25, 0.0, 1.25, 0.625, 0.0, -0.625, -1.5625, 0.0, 1.5625, 0.5625, -0.375,
                1.125, -0.75, 0.5, -1.5, 0.375, -0.25, 0.75, -0.9375, 0.625, -1.875});
  ir::Tensor x3 = patternTensor({1, 1, 2, 2, 2}, 7, 3), w3 = patternTensor({1, 1, 2, 2, 2}, 5, 1);
  auto y3 = run("ConvTranspose", {&x3, &w3}, {{"strides", I{2, 2, 2}}});
  expectTensor(y3[0], {1, 1, 4, 4, 4},
               {0.9375,  0.0,    -1.25,  0.0,    -0.9375, 0.5625,  1.25,   -0.75,   0.625,  0.0,     -1.5625,
                0.0,     -0.625, 0.375,  1.5625, -0.9375, -0.375,  1.125,  0.5,     -1.5,   0.1875,  -0.75,
                -0.25,   1.0,    -0.25,  0.75,   0.625,   -1.875,  0.125,  -0.5,    -0.3125, 1.25,   0.3125,
                0.0,     -1.875, 0.0,    -0.3125, 0.1875, 1.875,   -1.125, 0.0,     0.0,    1.875,   0.0,
                0.0,     0.0,    -1.875, 1.125,  -0.125,  0.375,   0.75,   -2.25,   0.0625, -0.25,   -0.375,
                1.5,     0.0,    0.0,    -0.75,  2.25,    0.0,     0.0,    0.375,   -1.5});
}

// Not a timed assertion: prints how long a ResNet-style 3x3 conv takes so a
// regression to per-element overhead is visible in the test log.
TEST(ConvOps, ResNetLayerSanityRun) {
  ir::Tensor x = patternTensor({1, 64, 56, 56}, 7, 3), w = patternTensor({64, 64, 3, 3}, 5, 1);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  auto y = run("Conv", {&x, &w}, {{"pads", I{1, 1, 1, 1}}});
  const double cpuMs = 1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // CPU time as well: on a loaded machine the wall time says little.
  std::printf("[ sanity ] Conv 3x3 [1,64,56,56] x 64 filters: %.1f ms wall, %.1f ms CPU\n", ms, cpuMs);
  ASSERT_EQ(y[0].shape(), (Shape{1, 64, 56, 56}));
  // Spot-check one interior and one corner output against a direct sum.
  const float* xd = x.data<float>();
  const float* wd = w.data<float>();
  auto direct = [&](int64_t m, int64_t oh, int64_t ow) {
    double s = 0;
    for (int64_t c = 0; c < 64; ++c)
      for (int64_t kh = 0; kh < 3; ++kh)
        for (int64_t kw = 0; kw < 3; ++kw) {
          const int64_t ih = oh - 1 + kh, iw = ow - 1 + kw;
          if (ih < 0 || ih >= 56 || iw < 0 || iw >= 56) continue;
          s += static_cast<double>(xd[(c * 56 + ih) * 56 + iw]) * wd[((m * 64 + c) * 3 + kh) * 3 + kw];
        }
    return s;
  };
  EXPECT_NEAR(y[0].data<float>()[(5 * 56 + 20) * 56 + 31], direct(5, 20, 31), 1e-3);
  EXPECT_NEAR(y[0].data<float>()[(63 * 56 + 55) * 56 + 0], direct(63, 55, 0), 1e-3);
}

}  // namespace
}  // namespace rammer::ops
