#pragma once
// Einsum in the forms models use, from ops the kernel library has. Two
// operands: the letters both share and the output keeps are the batch, the
// ones both share and the output drops are contracted, the others are each
// operand's free letters; each operand is transposed to [batch, free,
// contracted] (or [batch, contracted, free]) and seen as 3-D, one MatMul
// contracts, and a view and a transpose give the output's order. One
// operand: a Transpose, a ReduceSum over the letters the output drops, or
// both. Equations with an ellipsis, a repeated letter in one operand
// (a diagonal), a letter summed on one operand only, or unknown shapes stay
// Einsum for the reference executor.
#include "core/passes/pass.h"

namespace rammer::passes {

class EinsumLowering : public Pass {
 public:
  std::string name() const override { return "einsum-lowering"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
