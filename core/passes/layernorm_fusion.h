#pragma once
// Fuses the decomposed layer normalization that exports below opset 17
// write (torch's nn.LayerNorm at opset 14-16):
//   mean = ReduceMean(x), d = x - mean, var = ReduceMean(d^2 or d*d),
//   y = d / Sqrt(var + eps) [* gamma] [+ beta]
// over trailing axes, into one LayerNormalization node, which the
// LayerNormalization rKernels then run as one rOperator instead of eight.
// Matches only when every intermediate has no other reader, eps, gamma and
// beta are constants and gamma and beta cover the normalized shape (or are
// scalars). The last node's output value survives, so names are kept.
#include "core/passes/pass.h"

namespace rammer::passes {

class LayerNormFusion : public Pass {
 public:
  std::string name() const override { return "layernorm-fusion"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
