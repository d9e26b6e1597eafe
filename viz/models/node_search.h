#pragma once
// Finding operators by name, op type or shape for the graph view's search
// box. Plain text matches any of the three (case-insensitive substring);
// a "name:", "op:" or "shape:" prefix restricts it to one field.
//   conv          name or op type contains "conv"
//   op:Relu       op type contains "relu", including ops fused into a
//                 FusedElementwise node
//   64x56x56      some input or output shape has the dims 64, 56, 56 in a row
//                 (separators: x, ×, comma, space)
//   [1,64,56,56]  brackets: the whole shape must be exactly that
#include <string_view>
#include <vector>

#include "core/ir/graph.h"

namespace rammer::viz {

// Matching live nodes, in topological order (insertion order on a cycle).
std::vector<ir::NodeId> findNodes(const ir::Graph& graph, std::string_view query);

}  // namespace rammer::viz
