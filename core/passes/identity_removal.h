#pragma once
// Removes Identity nodes and inference-mode Dropout (whose mask is unused):
// consumers read the input directly. When the removed node wrote a graph
// output, its producer writes that output instead so output names survive.
#include "core/passes/pass.h"

namespace rammer::passes {

class IdentityRemoval : public Pass {
 public:
  std::string name() const override { return "identity-removal"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
