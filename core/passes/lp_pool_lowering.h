#pragma once
// LpPool and GlobalLpPool as the pools the kernel library has: the p-norm
// of a window is (K * mean(|x|^p))^(1/p) over its K positions, padding
// counting as zeros, so y = (AveragePool(|x|^p, count_include_pad) * K)^(1/p)
// (GlobalAveragePool for the global form), the element-wise parts fused.
// Forms whose divisor would not be K (ceil_mode windows past the padding,
// dilations) stay LpPool for the reference.
#include "core/passes/pass.h"

namespace rammer::passes {

class LpPoolLowering : public Pass {
 public:
  std::string name() const override { return "lp-pool-lowering"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
