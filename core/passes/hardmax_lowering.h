#pragma once
// Hardmax (1 at the first maximum along an axis, 0 elsewhere) in float32
// ops the kernel library has: m = ReduceMax(x) with the axis kept;
// is_max = 1 - sign(m - x) is 1 exactly where x equals the maximum; an
// exclusive CumSum of is_max along the axis counts the maxima before each
// position, so y = is_max * (1 - min(count, 1)) keeps the first. Every
// value is 0 or 1 or a small count: exact. Before opset 13 the input is
// seen as 2-D at the axis, as that opset's Hardmax does.
#include "core/passes/pass.h"

namespace rammer::passes {

class HardmaxLowering : public Pass {
 public:
  std::string name() const override { return "hardmax-lowering"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
