#pragma once
// Small queries the pattern-matching passes (LayerNormFusion,
// AttentionFusion) ask while walking a chain of nodes backwards.
#include <optional>
#include <set>

#include "core/ir/graph.h"

namespace rammer::passes {

// The live default-domain node of type `op` that produces v, or kNone.
ir::NodeId producerOf(const ir::Graph& g, ir::ValueId v, const char* op);

// v feeds only the given nodes and is not a graph output: fusing them loses
// nothing another reader needs.
bool readOnlyBy(const ir::Graph& g, ir::ValueId v, const std::set<ir::NodeId>& readers);

// The value of a float32 constant of one element.
std::optional<float> scalarConstant(const ir::Graph& g, ir::ValueId v);

}  // namespace rammer::passes
