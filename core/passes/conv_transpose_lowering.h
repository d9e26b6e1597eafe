#pragma once
// A ConvTranspose is the Conv that reads its input with zeros between the
// elements: stride s puts s - 1 zeros after each input element, the kernel
// is flipped in space and its in/out channels swapped (per group), and the
// padding becomes d(k - 1) - p (output_padding added at the end). This pass
// writes it that way, with ops the kernel library has: the zeros by a
// Reshape view, a Pad and another view, then a stride-1 Conv (implicit
// GEMM) on the transformed constant weights. Forms it does not take
// (auto_pad, output_shape, weights that are not constant, a padding larger
// than the kernel's reach) stay ConvTranspose for the reference executor.
#include "core/passes/pass.h"

namespace rammer::passes {

class ConvTransposeLowering : public Pass {
 public:
  std::string name() const override { return "conv-transpose-lowering"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
