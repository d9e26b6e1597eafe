#pragma once
// LRN (local response normalization across channels) from ops the kernel
// library has: the sum of squares over a window of `size` channels is an
// average pool over the channel dim of x^2 (x seen as [N, 1, C, rest],
// padding counted, so the mean times `size` is the sum), and
// y = x / (bias + alpha / size * sum)^beta is element-wise.
#include "core/passes/pass.h"

namespace rammer::passes {

class LrnLowering : public Pass {
 public:
  std::string name() const override { return "lrn-lowering"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
