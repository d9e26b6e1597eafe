#pragma once
// Before opset 7, a binary element-wise op broadcast its second input only
// when asked (`broadcast=1`), aligned at `axis` of the first rather than at
// the last dim, and PRelu's 1-D slope was one value per channel (dim 1).
// PyTorch's older exports (opset 6) are written that way. This pass
// rewrites those nodes into today's numpy broadcast: the second input gets
// trailing 1-dims (a constant is reshaped in place, any other value
// through a Reshape view), and the legacy attributes go. The element
// mapping is unchanged, so the reference runs the rewritten graph to the
// same outputs, and element-wise fusion (which refuses the legacy form)
// then takes these nodes like any other.
#include "core/passes/pass.h"

namespace rammer::passes {

class LegacyBroadcast : public Pass {
 public:
  std::string name() const override { return "legacy-broadcast"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
