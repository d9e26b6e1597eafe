#pragma once
// Transformer blocks on batch-first [B, S, H] float32 tensors, written the
// way torch.onnx.export writes them at opset 17: Linear as MatMul + Add,
// LayerNormalization as one node, exact GELU as Div/Erf/Add/Mul/Mul and
// GPT-2's tanh GELU spelled out, multi-head attention through Reshape and
// Transpose to [B, heads, S, head_dim] with 4-D batched MatMuls, and a
// causal mask built from constants (ConstantOfShape, Trilu, Where).
#include <cstdint>
#include <optional>
#include <string>

#include "samples/builder/model_builder.h"

namespace rammer::samples {

// LayerNormalization and Trilu need opset 17 and 14.
inline constexpr int64_t kTransformerOpset = 17;

struct TransformerShape {
  int64_t seq = 128, hidden = 768, heads = 12, ffn = 3072;
};

// x [..., in] -> x W + b with W [in, out] (PyTorch-style uniform init).
ir::ValueId linear(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out);
// Over the last axis, with weight and bias near 1 and 0.
ir::ValueId layerNorm(ModelBuilder& b, const std::string& name, ir::ValueId x);
// x * 0.5 * (1 + erf(x / sqrt 2)): BERT's and ViT's GELU.
ir::ValueId geluErf(ModelBuilder& b, const std::string& name, ir::ValueId x);
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): GPT-2's GELU.
ir::ValueId geluTanh(ModelBuilder& b, const std::string& name, ir::ValueId x);
// [S, S] additive mask: 0 on and below the diagonal, -1e9 above.
ir::ValueId causalMask(ModelBuilder& b, const std::string& name, int64_t seq);
// Multi-head self-attention with its output projection; `mask` is added to
// the scaled scores before the softmax.
ir::ValueId selfAttention(ModelBuilder& b, const std::string& name, ir::ValueId x, const TransformerShape& s,
                          std::optional<ir::ValueId> mask);
// Linear(ffn), GELU, Linear(hidden).
ir::ValueId feedForward(ModelBuilder& b, const std::string& name, ir::ValueId x, const TransformerShape& s,
                        bool tanhGelu);

}  // namespace rammer::samples
