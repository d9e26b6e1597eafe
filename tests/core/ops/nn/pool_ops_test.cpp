// Pooling against torch 1.13 (F.max_pool*d with return_indices, avg_pool*d
// with count_include_pad, lp_pool2d; float64) on the pattern() inputs of
// nn_test_util.h. torch's indices are per plane; ONNX's include the batch and
// channel offset, added in the generator.
#include "core/exec/reference_executor.h"
#include "core/ops/type_inference.h"
#include "tests/core/ops/nn_test_util.h"

namespace rammer::ops {
namespace {

using namespace nntest;
using I = std::vector<int64_t>;
using ir::Shape;

TEST(PoolOps, MaxPoolCeilModeLastWindowMustStartInside) {
  ir::Tensor x = patternTensor({1, 2, 5, 5}, 7, 3);
  // k2 s2 p1 on 5: ceil((5+2-2)/2)+1 = 4 windows, but the 4th would start in
  // the end padding, so PyTorch (and ONNX Runtime) keep 3.
  auto y = run("MaxPool", {&x}, {{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}},
                                 {"ceil_mode", int64_t{1}}});
  expectTensor(y[0], {1, 2, 3, 3},
               {-0.75, 1.0, 1.25, 1.5, 0.75, 1.0, -0.5, 1.25, 1.5, 0.75, 1.0, 1.25, -0.25, 1.5, 0.75, 1.0, 1.25, 1.5});
  // k2 s2 on 5: floor gives 2, ceil 3 (the last window is partial).
  auto z = run("MaxPool", {&x}, {{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}, {"ceil_mode", int64_t{1}}});
  expectTensor(z[0], {1, 2, 3, 3},
               {1.5, 1.25, -0.25, 1.25, 1.5, 1.0, 0.25, 0.5, -1.0, 1.5, 1.0, 1.25, 1.0, 1.25, 1.5, 0.0, 0.25, 0.5});
  EXPECT_EQ(infer("MaxPool", {f32({1, 2, 5, 5})}, {{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}})[0].shape,
            (Shape{1, 2, 2, 2}));
}

TEST(PoolOps, MaxPoolIndicesDilationPads) {
  ir::Tensor x = patternTensor({1, 2, 5, 5}, 7, 3);
  nntest::Attrs attrs{{"kernel_shape", I{2, 2}}, {"dilations", I{2, 2}}, {"pads", I{1, 1, 1, 1}}};
  auto y = run("MaxPool", {&x}, attrs, 2);
  ASSERT_EQ(y.size(), 2u);
  expectTensor(y[0], {1, 2, 5, 5},
               {0.0,  1.5,  0.25, -1.25, 0.25, 1.0,   0.75, 1.25, 1.0, 1.25, 1.25, 1.5,  1.5, 0.0,  1.5, 0.25, 0.75,
                0.5,  1.0,  0.5,  1.25,  -0.25, 1.5,  0.0,  1.5, 1.5,  0.0,  1.5, 0.25, -1.5, 0.5, 1.0,  0.75, 1.25,
                0.75, 1.5,  1.25, 1.5,   1.5,  -0.25, 0.5,  0.25, 0.75, 0.5, 0.75, -0.5, 1.25, -0.25, 1.5, -0.25});
  ASSERT_EQ(y[1].dtype(), ir::DType::Int64);
  EXPECT_EQ(y[1].toInt64s(),
            (std::vector<int64_t>{6,  5,  8,  9,  8,  1,  12, 3,  14, 3,  16, 5,  18, 19, 18, 21, 12,
                                  23, 14, 23, 16, 17, 18, 19, 18, 31, 32, 31, 34, 33, 36, 27, 38, 29,
                                  38, 31, 42, 31, 44, 43, 36, 47, 38, 49, 38, 41, 42, 43, 44, 43}));
  // storage_order 1: the spatial part of each index is column-major.
  attrs.emplace_back("storage_order", int64_t{1});
  auto c = run("MaxPool", {&x}, attrs, 2);
  EXPECT_EQ(c[1].toInt64s(),
            (std::vector<int64_t>{6,  1,  16, 21, 16, 5,  12, 15, 22, 15, 8,  1,  18, 23, 18, 9,  12,
                                  19, 22, 19, 8,  13, 18, 23, 18, 31, 36, 31, 46, 41, 32, 35, 42, 45,
                                  42, 31, 38, 31, 48, 43, 32, 39, 42, 49, 42, 33, 38, 43, 48, 43}));
  auto types = infer("MaxPool", {f32({-1, 2, 5, 5})}, attrs, 2);
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[1], (ir::TensorType{ir::DType::Int64, {-1, 2, 5, 5}, true}));
}

TEST(PoolOps, AveragePoolCountIncludePadAndCeil) {
  ir::Tensor x = patternTensor({1, 1, 5, 5}, 7, 3);
  nntest::Attrs attrs{{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}},
                      {"ceil_mode", int64_t{1}}};
  auto excl = run("AveragePool", {&x}, attrs);
  expectTensor(excl[0], {1, 1, 3, 3},
               {0.4375, 0.08333333, 0.0, 0.2916667, 0.02777778, 0.125, -0.125, 0.3333333, 0.25});
  attrs.emplace_back("count_include_pad", int64_t{1});
  auto incl = run("AveragePool", {&x}, attrs);
  expectTensor(incl[0], {1, 1, 3, 3},
               {0.1944444, 0.05555556, 0.0, 0.1944444, 0.02777778, 0.08333333, -0.05555556, 0.2222222, 0.1111111});
  // In 6 with k3 s2 p1 ceil: the 4th window covers input 5, end pad 6 and
  // position 7 beyond the pad; count_include_pad counts only up to the pad.
  ir::Tensor x6 = patternTensor({1, 1, 6, 6}, 7, 3);
  auto over = run("AveragePool", {&x6}, attrs);
  expectTensor(over[0], {1, 1, 4, 4},
               {-0.1388889, -0.08333333, 0.08333333, 0.08333333, 0.0, -0.4444444, -0.1944444, -0.125, 0.2777778,
                -0.02777778, -0.1388889, 0.08333333, 0.2083333, 0.0, -0.4166667, -0.3125});
}

TEST(PoolOps, AveragePoolSameUpperByHand) {
  // 1x1x4x4 of 0..15, k3 s2 SAME_UPPER: out 2x2, one pad at the end.
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  ir::Tensor x = ir::Tensor::fromVector<float>({1, 1, 4, 4}, v);
  nntest::Attrs attrs{{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}};
  // Windows rows {0,1,2},{2,3}; cols likewise. Means of the valid elements:
  // (0..2 x 0..2) = 5, rows 0-2 cols 2-3 = 6.5, rows 2-3 cols 0-2 = 11, rows 2-3 cols 2-3 = 12.5.
  expectTensor(run("AveragePool", {&x}, attrs)[0], {1, 1, 2, 2}, {5, 6.5, 11, 12.5});
  // Counting the pad: divisor 9 everywhere (window fits the padded 5x5).
  attrs.emplace_back("count_include_pad", int64_t{1});
  expectTensor(run("AveragePool", {&x}, attrs)[0], {1, 1, 2, 2}, {5, 39.0 / 9, 66.0 / 9, 50.0 / 9});
  // SAME_LOWER puts the pad first: windows rows {-1,0,1},{1,2,3}.
  nntest::Attrs lower{{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}, {"auto_pad", std::string("SAME_LOWER")}};
  expectTensor(run("AveragePool", {&x}, lower)[0], {1, 1, 2, 2}, {2.5, 4, 8.5, 10});
}

TEST(PoolOps, OneAndThreeDims) {
  ir::Tensor x1 = patternTensor({1, 2, 7}, 7, 3);
  expectTensor(run("MaxPool", {&x1}, {{"kernel_shape", I{3}}, {"strides", I{2}}})[0], {1, 2, 3},
               {1.0, 1.25, 1.5, 0.25, 0.5, 0.75});
  ir::Tensor x3 = patternTensor({1, 1, 3, 4, 4}, 7, 3);
  expectTensor(run("AveragePool", {&x3},
                   {{"kernel_shape", I{2, 2, 2}}, {"strides", I{1, 2, 2}}, {"pads", I{0, 1, 1, 0, 1, 1}}})[0],
               {1, 1, 2, 3, 3},
               {0.25, 0.4375, 0.625, -0.625, -0.03125, -0.25, 0.125, 0.3125, 0.5, 0.625, 0.0, -0.625, -0.25,
                -0.0625, 0.125, 0.5, -0.125, 0.875});
}

TEST(PoolOps, LpPool) {
  ir::Tensor x = patternTensor({1, 2, 4, 4}, 7, 3);
  expectTensor(run("LpPool", {&x}, {{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}, {"p", int64_t{2}}})[0],
               {1, 2, 2, 2}, {1.968502, 2.015564, 1.658312, 1.581139, 1.984313, 2.015564, 1.837117, 1.968502});
}

TEST(PoolOps, GlobalPools) {
  ir::Tensor x = ir::Tensor::fromVector<float>({1, 2, 2, 2}, {1, 2, 3, 6, -1, -5, -2, -4});
  expectTensor(run("GlobalAveragePool", {&x})[0], {1, 2, 1, 1}, {3, -3});
  expectTensor(run("GlobalMaxPool", {&x})[0], {1, 2, 1, 1}, {6, -1});
  expectTensor(run("GlobalLpPool", {&x}, {{"p", int64_t{1}}})[0], {1, 2, 1, 1}, {12, 12});
  EXPECT_EQ(infer("GlobalAveragePool", {f32({-1, 512, -1, 7})})[0], f32({-1, 512, 1, 1}));
  EXPECT_EQ(infer("GlobalMaxPool", {f32({2, 3, 4, 5, 6})})[0], f32({2, 3, 1, 1, 1}));
}

TEST(PoolOps, InferenceUnknownDimsAndErrors) {
  EXPECT_EQ(infer("MaxPool", {f32({-1, 64, 112, -1})},
                  {{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}})[0],
            f32({-1, 64, 56, -1}));
  // Unknown rank: kernel_shape still gives it.
  EXPECT_EQ(infer("AveragePool", {ir::TensorType{ir::DType::Float32, {}, false}}, {{"kernel_shape", I{2, 2}}})[0],
            f32({-1, -1, -1, -1}));
  std::string e = inferError("MaxPool", {f32({1, 2, 5, 5})});
  EXPECT_NE(e.find("kernel_shape is required"), std::string::npos) << e;
  e = inferError("MaxPool", {f32({1, 2, 5, 5})}, {{"kernel_shape", I{2, 2, 2}}});
  EXPECT_NE(e.find("kernel_shape [2, 2, 2] has 3 entries"), std::string::npos) << e;
  e = inferError("AveragePool", {f32({1, 2, 5})}, {{"kernel_shape", I{2}}, {"pads", I{1, 1, 1, 1}}});
  EXPECT_NE(e.find("pads [1, 1, 1, 1] has 4 entries, expected 2"), std::string::npos) << e;
  e = inferError("MaxPool", {f32({2, 5})}, {{"kernel_shape", I{2}}});
  EXPECT_NE(e.find("must have rank >= 3"), std::string::npos) << e;
  EXPECT_DOUBLE_EQ(flops("MaxPool", {f32({1, 2, 4, 4})}, {{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}}),
                   2.0 * 2 * 2 * 4);
  EXPECT_EQ(def("MaxPool").category, OpCategory::Pooling);
  EXPECT_EQ(def("GlobalAveragePool").category, OpCategory::Pooling);
}

// Conv -> MaxPool -> GlobalAveragePool in a graph whose batch is unknown:
// type inference keeps the batch unknown, the reference executor runs batch 2.
TEST(NnGraph, UnknownBatchThroughInferenceAndExecution) {
  ir::Graph g;
  g.opsetVersion = 17;
  const ir::ValueId x = g.addValue("x", f32({-1, 2, 5, 5}));
  g.addInput(x);
  const ir::ValueId w = g.addValue("w", f32({3, 2, 3, 3}));
  g.value(w).constant = patternTensor({3, 2, 3, 3}, 5, 1);
  const ir::ValueId b = g.addValue("b", f32({3}));
  g.value(b).constant = patternTensor({3}, 3, 2);
  const ir::ValueId c = g.addValue("c"), p = g.addValue("p"), gp = g.addValue("gp");
  auto node = [&](const std::string& op, std::vector<ir::ValueId> in, ir::ValueId out, const nntest::Attrs& attrs) {
    ir::Node n;
    n.name = op;
    n.opType = op;
    n.inputs = std::move(in);
    n.outputs = {out};
    for (const auto& [k, v] : attrs) n.attrs.set(k, v);
    g.addNode(std::move(n));
  };
  node("Conv", {x, w, b}, c, {{"pads", I{1, 1, 1, 1}}});
  node("MaxPool", {c}, p, {{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}});
  node("GlobalAveragePool", {p}, gp, {});
  g.addOutput(gp);

  std::vector<ir::Diagnostic> errs = inferTypes(g);
  ASSERT_TRUE(errs.empty()) << ir::formatDiagnostics(errs);
  EXPECT_EQ(g.value(c).type, f32({-1, 3, 5, 5}));
  EXPECT_EQ(g.value(p).type, f32({-1, 3, 2, 2}));
  EXPECT_EQ(g.value(gp).type, f32({-1, 3, 1, 1}));

  auto out = exec::runReference(g, {patternTensor({2, 2, 5, 5}, 7, 3)});
  ASSERT_TRUE(out.ok()) << ir::formatDiagnostics(out.errors());
  // torch: F.max_pool2d(F.conv2d(x, w, b, padding=1), 2, 2).mean((2, 3), keepdim=True)
  expectTensor(out.value()[0], {2, 3, 1, 1}, {5.640625, 6.28125, 8.0625, 5.171875, 5.78125, 7.875});
}

}  // namespace
}  // namespace rammer::ops
