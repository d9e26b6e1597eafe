#pragma once
// Removes nodes none of whose outputs is read or is a graph output (unused
// constants go with the manager's compaction).
#include "core/passes/pass.h"

namespace rammer::passes {

class DeadCodeElimination : public Pass {
 public:
  std::string name() const override { return "dead-code-elimination"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
