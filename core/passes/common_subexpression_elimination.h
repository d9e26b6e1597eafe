#pragma once
// Merges nodes that compute the same op with the same attributes on the same
// inputs, and small constants with identical contents. Nodes that write graph
// outputs are kept so output names survive.
#include "core/passes/pass.h"

namespace rammer::passes {

class CommonSubexpressionElimination : public Pass {
 public:
  std::string name() const override { return "common-subexpression-elimination"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
