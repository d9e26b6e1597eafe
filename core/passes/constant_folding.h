#pragma once
// Evaluates nodes whose inputs are all constants (and Shape/Size of fully
// known types) and replaces their outputs with constant values: shape
// sub-graphs fold away, Constant/ConstantOfShape materialise their tensors.
#include <cstdint>

#include "core/passes/pass.h"

namespace rammer::passes {

class ConstantFolding : public Pass {
 public:
  explicit ConstantFolding(int64_t maxOutputElements = int64_t{1} << 26) : maxOutputElements_(maxOutputElements) {}
  std::string name() const override { return "constant-folding"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;

 private:
  int64_t maxOutputElements_;
};

}  // namespace rammer::passes
