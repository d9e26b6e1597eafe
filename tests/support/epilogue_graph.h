#pragma once
// A graph whose element-wise nodes the epilogue fusion pass moves into
// every kind of GEMM epilogue (issue #27 item 3), shared by the pass, rKernel,
// host-target and NVRTC tests:
//   conv1 (3x3, bias) -> Relu                        FusedConv "(relu x0)"
//   conv2 (1x1) + conv1's activation -> Relu          FusedConv, a residual input
//   dw (depthwise 3x3) -> Clip(0, 6)                  FusedConv, the direct depthwise rKernel
//   GlobalAveragePool -> Flatten -> fc (Gemm, transB) -> Sigmoid   FusedGemm (a GEMV: M = 1)
//   mm (MatMul) + s (one element) -> Tanh             FusedMatMul, a one-element input
//   mm2 (MatMul) + bias [20]                          not fused: the bias broadcasts
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/passes/pass_manager.h"
#include "tests/support/graph_builder.h"

namespace rammer::testing {

inline ir::Graph epilogueGraph() {
  GraphBuilder b;
  const auto pad1 = attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const ir::ValueId x = b.input("x", {1, 8, 9, 9});
  const ir::ValueId c1 = b.op("Conv", "conv1", {x, b.constant("w1", randomTensor({16, 8, 3, 3}, 1)),
                                                b.constant("b1", randomTensor({16}, 2))},
                              pad1);
  const ir::ValueId r1 = b.op("Relu", "relu1", {c1});
  const ir::ValueId c2 = b.op("Conv", "conv2", {r1, b.constant("w2", randomTensor({16, 16, 1, 1}, 3))});
  const ir::ValueId r2 = b.op("Relu", "relu2", {b.op("Add", "residual", {c2, r1})});
  ir::Attributes dw = pad1;
  dw.set("group", int64_t{16});
  const ir::ValueId c3 = b.op("Conv", "dw", {r2, b.constant("w3", randomTensor({16, 1, 3, 3}, 4))}, dw);
  const ir::ValueId r3 = b.op("Clip", "relu6", {c3, b.constant("lo", ir::Tensor::fromVector<float>({}, {0.0f})),
                                                b.constant("hi", ir::Tensor::fromVector<float>({}, {6.0f}))});
  const ir::ValueId pooled = b.op("Flatten", "flat", {b.op("GlobalAveragePool", "gap", {r3})});
  const ir::ValueId fc = b.op("Gemm", "fc", {pooled, b.constant("wfc", randomTensor({10, 16}, 5)),
                                             b.constant("bfc", randomTensor({10}, 6))},
                              attrs({{"transB", int64_t{1}}}));
  b.output(b.op("Sigmoid", "sigmoid", {fc}));
  const ir::ValueId y = b.input("y", {4, 24});
  const ir::ValueId mm = b.op("MatMul", "mm", {y, b.constant("wmm", randomTensor({24, 20}, 7))});
  b.output(b.op("Tanh", "tanh", {b.op("Add", "shift", {mm, b.input("s", {1})})}));
  const ir::ValueId mm2 = b.op("MatMul", "mm2", {y, b.constant("wmm2", randomTensor({24, 20}, 8))});
  b.output(b.op("Add", "bias2", {mm2, b.constant("bias2v", randomTensor({20}, 9))}));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

// The standard passes, with or without the epilogue fusion.
inline ir::Graph optimizedEpilogueGraph(bool fuseEpilogues) {
  ir::Graph g = epilogueGraph();
  passes::PassContext ctx;
  auto records = passes::standardPipeline({.fuseEpilogues = fuseEpilogues}).run(g, ctx);
  EXPECT_TRUE(records.ok()) << records.errorText();
  g.compact();
  return g;
}

}  // namespace rammer::testing
