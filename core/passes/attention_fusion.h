#pragma once
// Fuses scaled dot-product attention as exports write it,
//   P = Softmax(MatMul(Q, KT) [* or / a scalar constant] [+ mask], last axis)
//   O = MatMul(P, V)
// into one com.rammer::Attention node (core/ops/nn/attention_op.h), whose
// rKernels never write the score matrix to memory. Matches only when Q, KT
// and V share their leading dims, shapes are known, heads are at most
// kAttentionMaxHeadDim wide, the scale is a constant scalar and no
// intermediate (scores, scaled, masked, P) has another reader.
// O's value survives, so names are kept.
#include "core/passes/pass.h"

namespace rammer::passes {

class AttentionFusion : public Pass {
 public:
  std::string name() const override { return "attention-fusion"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
