#pragma once
// InstanceNormalization normalizes each (sample, channel) over its spatial
// dims, then scales and shifts per channel: the same row reduction as a
// LayerNormalization over the axes from 2 on, followed by a per-channel
// multiply-add. This pass writes it that way (a LayerNormalization with a
// scalar scale of 1 and no bias, then Mul and Add by the scale and bias seen
// as [C, 1, ...]), so the layer-norm rKernels run it and the element-wise
// fusion takes the affine part.
#include "core/passes/pass.h"

namespace rammer::passes {

class InstanceNormLowering : public Pass {
 public:
  std::string name() const override { return "instance-norm-lowering"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
