#pragma once
// Re-runs type inference over the whole graph (after edits from outside, or
// as the first step of a pipeline); notes how many value types it refined.
#include "core/passes/pass.h"

namespace rammer::passes {

class ShapeInferencePass : public Pass {
 public:
  std::string name() const override { return "shape-inference"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes
