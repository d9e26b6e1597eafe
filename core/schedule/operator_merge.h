#pragma once
// IOS's *operator merge* (Ding et al., MLSys'21, §3): operators of one type
// that read the same input are computed as one wider operator. Here that
// is a rewrite of the graph: the weights are concatenated along the output
// axis into a new constant, one operator computes every output channel (or
// column), and a Split cuts its output back into the original output
// values, so every consumer reads exactly what it read before (same value
// ids) and the outputs stay exact. Convolutions (group 1), Gemm and MatMul
// with constant weights merge; the IOS policy decides which sets pay off.
#include <optional>
#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace rammer::schedule {

struct MergedOperator {
  ir::NodeId merged = ir::kNone;  // the wider operator
  ir::NodeId split = ir::kNone;   // writes the original outputs
};

// Why `nodes` cannot merge (one sentence naming the node), or nullopt when
// they can.
std::optional<std::string> mergeObstacle(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes);

// Rewrites `graph`: the nodes are removed (tombstoned, so every other node
// keeps its id) and the merged operator and its Split added. An error
// naming the obstacle when they cannot merge; the graph is then unchanged.
ir::Result<MergedOperator> mergeOperators(ir::Graph& graph, const std::vector<ir::NodeId>& nodes);

// Just the nodes (their input, weights and outputs) in a graph of their
// own, merged: what the policy prices a merge on before it rewrites the
// real graph.
struct MergeSketch {
  ir::Graph graph;
  MergedOperator ops;
};
ir::Result<MergeSketch> sketchMerge(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes);

}  // namespace rammer::schedule
