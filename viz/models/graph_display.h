#pragma once
// What the graph view draws, derived once from an ir::Graph: one box per
// live operator (or per folded repeated layer, standing for its operators)
// plus one pill per graph input and output, and one edge per (producer,
// consumer, value) labelled with the value's shape. Constants (initializers)
// are not boxes: the inspector lists them as parameters.
// Plain structs, no Qt: the layout and the tests use it directly.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ir/graph.h"
#include "core/ops/op_registry.h"
#include "viz/models/layer_folding.h"

namespace rammer::viz {

enum class DisplayNodeKind { Operator, GraphInput, GraphOutput, Layer };

struct DisplayNode {
  DisplayNodeKind kind = DisplayNodeKind::Operator;
  int32_t id = ir::kNone;  // ir::NodeId for operators (a layer: its first), ir::ValueId for inputs/outputs
  std::string title;       // op type, "input"/"output", or "27 operators" for a layer
  std::string name;        // node or value name, or the layer's scope
  ops::OpCategory category = ops::OpCategory::Other;
  // FusedElementwise only: "OpType:name" of the nodes it replaced and the
  // expression it computes. More than one member makes a collapsible group.
  std::vector<std::string> fusedMembers;
  std::string expr;
  // A folded layer: the operators it stands for.
  std::vector<ir::NodeId> layerNodes;

  bool isFusedGroup() const { return fusedMembers.size() > 1; }
  bool isTerminal() const { return kind == DisplayNodeKind::GraphInput || kind == DisplayNodeKind::GraphOutput; }
};

struct DisplayEdge {
  int from = 0;  // index into GraphDisplay::nodes
  int to = 0;
  ir::ValueId value = ir::kNone;
  std::string label;  // the value's shape, "1×64×56×56"
};

struct GraphDisplay {
  std::vector<DisplayNode> nodes;
  std::vector<DisplayEdge> edges;

  // Index of an operator's box (its layer's when folded), or -1 when the
  // node is not shown.
  int indexOfNode(ir::NodeId node) const;

  std::unordered_map<ir::NodeId, int> operatorIndex;
};

// Operators in topological order (insertion order when the graph has a
// cycle, so a broken graph still draws), then inputs, then outputs. Each of
// `folded` is one box where its first operator would be; edges inside it go.
GraphDisplay buildGraphDisplay(const ir::Graph& graph, const std::vector<RepeatedLayer>& folded = {});
// The order the views list a graph's operators in: topological, or (for a
// graph with a cycle) the live nodes by id.
std::vector<ir::NodeId> displayOrder(const ir::Graph& graph);

// "1×64×56×56"; "scalar" for rank 0; "?" for unknown dims or rank.
std::string shapeLabel(const ir::TensorType& type);

}  // namespace rammer::viz
