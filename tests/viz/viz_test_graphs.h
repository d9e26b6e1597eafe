#pragma once
// Graphs the viz tests draw: a small diamond with a convolution, its fused
// form, and a wavefront grid (the shape of unrolled stacked LSTMs) big
// enough to stress the layout.
#include <gtest/gtest.h>

#include <string>

#include "core/passes/elementwise_fusion.h"
#include "tests/support/graph_builder.h"

namespace rammer::viztest {

// input x[1,3,8,8] -> Conv "conv" (weights w[4,3,3,3]) -> y
//   y -> Relu "relu_a" -> a;  y -> Sigmoid "sigmoid_b" -> b;  Add "add_c"(a, b) -> output
// Node ids: conv 0, relu_a 1, sigmoid_b 2, add_c 3.
inline ir::Graph diamond() {
  testing::GraphBuilder b;
  ir::ValueId x = b.input("x", {1, 3, 8, 8});
  std::vector<float> w(4 * 3 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) - 3.0f;  // -3..3
  ir::ValueId wv = b.constant("w", ir::Tensor::fromVector<float>({4, 3, 3, 3}, w));
  ir::ValueId y = b.op("Conv", "conv", {x, wv},
                       testing::attrs({{"kernel_shape", std::vector<int64_t>{3, 3}},
                                       {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  ir::ValueId a = b.op("Relu", "relu_a", {y});
  ir::ValueId s = b.op("Sigmoid", "sigmoid_b", {y});
  ir::ValueId c = b.op("Add", "add_c", {a, s});
  b.output(c);
  auto diags = b.infer();
  EXPECT_TRUE(diags.empty()) << ir::formatDiagnostics(diags);
  return std::move(b.graph());
}

// diamond() after element-wise fusion: conv -> FusedElementwise
// "add_c+fused" (relu_a, sigmoid_b, add_c).
inline ir::Graph fusedDiamond() {
  ir::Graph g = diamond();
  passes::PassContext ctx;
  passes::ElementwiseFusion().run(g, ctx);
  g.compact();
  return g;
}

// rows x cols Add nodes; node (r, c) reads (r, c-1) and (r-1, c), the first
// row and column read the graph input. Node id = r * cols + c.
inline ir::Graph grid(int rows, int cols) {
  testing::GraphBuilder b;
  ir::ValueId in = b.input("in", {1, 16});
  std::vector<ir::ValueId> prevRow(static_cast<size_t>(cols), in);
  for (int r = 0; r < rows; ++r) {
    ir::ValueId left = in;
    for (int c = 0; c < cols; ++c) {
      const std::string name = "cell_" + std::to_string(r) + "_" + std::to_string(c);
      left = b.op("Add", name, {left, prevRow[static_cast<size_t>(c)]});
      prevRow[static_cast<size_t>(c)] = left;
    }
  }
  b.output(prevRow.back());
  auto diags = b.infer();
  EXPECT_TRUE(diags.empty()) << ir::formatDiagnostics(diags);
  return std::move(b.graph());
}

// A stem op, `layers` encoder layers named as torch.onnx.export names them
// ("/encoder/layers.3/act1/Sigmoid"), each `opsPerLayer` alternating Relu and
// Sigmoid plus a residual Add, then a head. Node ids: 0 the stem, then each
// layer's ops in order, the head last.
inline ir::Graph layered(int layers, int opsPerLayer) {
  testing::GraphBuilder b;
  ir::ValueId x = b.op("Relu", "/stem/Relu", {b.input("x", {1, 16})});
  for (int l = 0; l < layers; ++l) {
    const std::string scope = "/encoder/layers." + std::to_string(l) + "/";
    ir::ValueId h = x;
    for (int k = 0; k < opsPerLayer; ++k) {
      const char* op = k % 2 ? "Sigmoid" : "Relu";
      h = b.op(op, scope + "act" + std::to_string(k) + "/" + op, {h});
    }
    x = b.op("Add", scope + "Add", {x, h});
  }
  b.output(b.op("Relu", "/head/Relu_1", {x}));
  auto diags = b.infer();
  EXPECT_TRUE(diags.empty()) << ir::formatDiagnostics(diags);
  return std::move(b.graph());
}

}  // namespace rammer::viztest
