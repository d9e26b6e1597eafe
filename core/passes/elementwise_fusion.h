#pragma once
// Turns every float32 element-wise op (arithmetic, activations, inference
// BatchNormalization that was not folded) into a FusedElementwise node, and
// merges a producer into its consumer when the consumer is its only reader:
// chains and trees such as bias-add + activation after a Conv/Gemm/MatMul
// become one node carrying one expression. Scalar constants become literals.
#include <string>
#include <vector>

#include "core/passes/pass.h"

namespace rammer::passes {

// The ONNX op types this pass turns into FusedElementwise (on float32).
std::vector<std::string> fusedElementwiseOpTypes();

class ElementwiseFusion : public Pass {
 public:
  std::string name() const override { return "elementwise-fusion"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
