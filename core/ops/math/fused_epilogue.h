#pragma once
// FusedConv, FusedGemm and FusedMatMul (domain com.rammer): a Conv, Gemm or
// MatMul whose result goes through an element-wise expression before it is
// stored (the epilogue fusion pass: bias, activation, residual add in the
// GEMM's epilogue instead of an element-wise operator's rTasks that read
// and write the tensor once more).
//
// Inputs: the base op's slots (padded to its full arity with omitted
// slots), then the expression's other inputs, each the output's shape or a
// single element. Attributes: the base op's own, and "epilogue", a
// FusedElementwise expression over x0 (the base op's result) and x1, x2, ...
// (the inputs from the base arity on).
#include <cstddef>
#include <string_view>

#include "core/ir/graph.h"
#include "core/ops/math/fused_expr.h"

namespace rammer::ops {

struct EpilogueOp {
  std::string_view fused;  // "FusedConv"
  std::string_view base;   // "Conv" (default domain)
  size_t arity;            // the base op's input slots: extras start here
};

inline constexpr std::string_view kEpilogueAttr = "epilogue";

// The entry whose fused type is `type`; nullptr for any other op.
const EpilogueOp* epilogueOpOf(std::string_view fusedType);
// The entry whose base type is `type`; nullptr when it has no fused form.
const EpilogueOp* epilogueOpFor(std::string_view baseType);

// The node's "epilogue" expression, checked against the `epilogueInputs`
// inputs it has after the base op's; OpError naming what is wrong.
FusedExpr parseEpilogue(const ir::Node& node, size_t epilogueInputs);

}  // namespace rammer::ops
