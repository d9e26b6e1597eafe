#pragma once
// Folds an inference BatchNormalization into the Conv or Gemm that feeds it
// (when that output has no other reader and every parameter is constant):
// weights scale by gamma/sqrt(var+eps) per output channel and the bias
// absorbs the shift. The BN's output value survives, so names are kept.
#include "core/passes/pass.h"

namespace rammer::passes {

class BatchNormFolding : public Pass {
 public:
  std::string name() const override { return "batchnorm-folding"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
