#pragma once
// ReduceLogSumExp as the reference computes it, out of ops with rKernels:
// m = ReduceMax(x) with the reduced dims kept, then
// log(ReduceSum(exp(x - m))) + m, m seen in the output's shape through a
// Reshape view. Subtracting the maximum keeps exp from overflowing, as the
// reference does. The axes must be known (an attribute or a constant).
#include "core/passes/pass.h"

namespace rammer::passes {

class LogSumExpLowering : public Pass {
 public:
  std::string name() const override { return "log-sum-exp-lowering"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
