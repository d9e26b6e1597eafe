#pragma once
// Moves a FusedElementwise into the epilogue of the Conv, Gemm or MatMul
// whose result it reads (issue #27 item 3): where that result feeds the
// element-wise node only and is no graph output, and the expression's other
// inputs have the result's shape or one element, the pair becomes one
// FusedConv / FusedGemm / FusedMatMul (core/ops/math/fused_epilogue.h)
// that stores the expression instead of the product -- bias, activation and
// residual add without a tensor written and read again, and without the
// element-wise rTasks and the barrier before them. The fused node keeps the
// GEMM's name (it is that operator, with an epilogue) and lists the
// original nodes in "fused_nodes", so a schedule edit or a measured trace
// naming the element-wise node finds it there.
#include "core/passes/pass.h"

namespace rammer::passes {

class EpilogueFusion : public Pass {
 public:
  std::string name() const override { return "epilogue-fusion"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
