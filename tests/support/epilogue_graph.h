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
#include <string>
#include <vector>

#include "core/kernels/kernel_library.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/constraints.h"
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

// Epilogues on layers deep enough in K for split-K variants, whose last
// chunk to arrive applies the epilogue (cuda/splitk.cuh):
//   deep_conv (3x3, 64 -> 32 channels, bias) -> Relu   FusedConv, conv_igemm_*_splitk*
//   deep_mm [2, 1024] x [1024, 24] + s (one element) -> Tanh   FusedMatMul, gemm_*_splitk*, gemv_nmajor_splitk*
//   deep_fc [1, 2048] x [40, 2048]^T + bias -> Sigmoid  FusedGemm, gemv_kmajor_splitk*
inline ir::Graph splitKEpilogueGraph() {
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 64, 6, 6});
  const ir::ValueId conv =
      b.op("Conv", "deep_conv",
           {x, b.constant("w", randomTensor({32, 64, 3, 3}, 11, -0.1f, 0.1f)), b.constant("b", randomTensor({32}, 12))},
           attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  b.output(b.op("Relu", "relu", {conv}));
  const ir::ValueId wm = b.constant("wm", randomTensor({1024, 24}, 13, -0.05f, 0.05f));
  const ir::ValueId mm = b.op("MatMul", "deep_mm", {b.input("z", {2, 1024}), wm});
  b.output(b.op("Tanh", "tanh", {b.op("Add", "shift", {mm, b.input("s", {1})})}));
  const ir::ValueId fc = b.op("Gemm", "deep_fc",
                              {b.input("f", {1, 2048}), b.constant("wf", randomTensor({40, 2048}, 14, -0.03f, 0.03f)),
                               b.constant("bf", randomTensor({40}, 15))},
                              attrs({{"transB", int64_t{1}}}));
  b.output(b.op("Sigmoid", "sigmoid", {fc}));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

// The standard passes over `g`, with or without the epilogue fusion.
inline ir::Graph optimized(ir::Graph g, bool fuseEpilogues) {
  passes::PassContext ctx;
  auto records = passes::standardPipeline({.fuseEpilogues = fuseEpilogues}).run(g, ctx);
  EXPECT_TRUE(records.ok()) << records.errorText();
  g.compact();
  return g;
}

// The standard passes, with or without the epilogue fusion.
inline ir::Graph optimizedEpilogueGraph(bool fuseEpilogues) { return optimized(epilogueGraph(), fuseEpilogues); }

// `node`'s first candidate rKernel whose name is `name`, or starts with it
// when `prefix` ("gemm_32x32_splitk" -> "gemm_32x32_splitk4"); a test
// failure and an empty rKernel when it has none.
inline kernels::RKernel candidateOf(const ir::Graph& g, const std::string& node, const std::string& name,
                                    bool prefix = false) {
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    if (g.node(id).removed || g.node(id).name != node) continue;
    const auto ks = kernels::kernelsFor(g, id);
    if (ks)
      for (const auto& k : ks->candidates)
        if (prefix ? k.name.rfind(name, 0) == 0 : k.name == name) return k;
  }
  ADD_FAILURE() << node << " has no candidate " << name << (prefix ? "*" : "");
  return {};
}
inline std::string candidateStartingWith(const ir::Graph& g, const std::string& node, const std::string& prefix) {
  return candidateOf(g, node, prefix, true).name;
}

// Pins every fused node of splitKEpilogueGraph() to a split-K variant: the
// GEMM tiles for the MatMul when `gemmForMatMul`, else the GEMV (and the
// other family for the Gemm).
inline schedule::Constraints splitKPins(const ir::Graph& g, bool gemmForMatMul) {
  schedule::Constraints c;
  const char* mm = gemmForMatMul ? "gemm_32x32_splitk" : "gemv_nmajor_splitk";
  const char* fc = gemmForMatMul ? "gemv_kmajor_splitk" : "gemm_32x32_splitk";
  c.kernelFor = {{"deep_mm", candidateStartingWith(g, "deep_mm", mm)},
                 {"deep_fc", candidateStartingWith(g, "deep_fc", fc)},
                 {"deep_conv", candidateStartingWith(g, "deep_conv", "conv_igemm_64x64_splitk")}};
  return c;
}

}  // namespace rammer::testing
