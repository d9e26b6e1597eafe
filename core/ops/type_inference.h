#pragma once
// Infers the type (dtype and shape) of every value of a graph, in
// topological order, using each op's infer function. Small values that can
// be computed from constants (shape sub-graphs such as Shape -> Gather ->
// Concat -> Reshape) are evaluated on the way so that the shapes they feed
// become known; the graph itself is not changed beyond value types.
#include <cstdint>
#include <vector>

#include "core/ir/graph.h"
#include "core/ops/op_registry.h"

namespace rammer::ops {

struct InferenceOptions {
  // Inputs of at most this many elements in total are evaluated eagerly.
  int64_t maxFoldElements = 1 << 16;
};

// Empty on success; otherwise errors naming the nodes at fault.
std::vector<ir::Diagnostic> inferTypes(ir::Graph& graph, const InferenceOptions& options = {},
                                       const OpRegistry& registry = OpRegistry::builtin());

// Makes the OpContext for a node from the graph's current types; `known`
// supplies values by ValueId (constants are used as well).
OpContext makeContext(const ir::Graph& graph, const ir::Node& node,
                      const std::vector<const ir::Tensor*>& known);

}  // namespace rammer::ops
