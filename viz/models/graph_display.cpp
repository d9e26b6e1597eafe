#include "viz/models/graph_display.h"

#include <set>
#include <tuple>

#include "viz/models/op_category_style.h"

namespace rammer::viz {

int GraphDisplay::indexOfNode(ir::NodeId node) const {
  auto it = operatorIndex.find(node);
  return it == operatorIndex.end() ? -1 : it->second;
}

std::string shapeLabel(const ir::TensorType& type) {
  if (!type.rankKnown) return "?";
  if (type.shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < type.shape.size(); ++i) {
    if (i) s += "\u00D7";
    s += type.shape[i] == ir::kUnknownDim ? "?" : std::to_string(type.shape[i]);
  }
  return s;
}

std::vector<ir::NodeId> displayOrder(const ir::Graph& graph) {
  if (auto topo = graph.topologicalOrder(); topo.ok()) return std::move(topo.value());
  std::vector<ir::NodeId> order;
  for (size_t i = 0; i < graph.numNodeSlots(); ++i)
    if (!graph.node(static_cast<ir::NodeId>(i)).removed) order.push_back(static_cast<ir::NodeId>(i));
  return order;
}

GraphDisplay buildGraphDisplay(const ir::Graph& graph, const std::vector<RepeatedLayer>& folded) {
  GraphDisplay d;
  const std::vector<ir::NodeId> order = displayOrder(graph);
  std::unordered_map<ir::NodeId, const RepeatedLayer*> layerOf;
  for (const RepeatedLayer& l : folded)
    for (ir::NodeId id : l.nodes) layerOf.emplace(id, &l);
  std::unordered_map<const RepeatedLayer*, int> layerBox;
  for (ir::NodeId id : order) {
    if (auto it = layerOf.find(id); it != layerOf.end()) {
      const RepeatedLayer& l = *it->second;
      auto [box, added] = layerBox.emplace(&l, static_cast<int>(d.nodes.size()));
      if (added) {
        DisplayNode dn;
        dn.kind = DisplayNodeKind::Layer;
        dn.id = id;
        dn.title = std::to_string(l.nodes.size()) + " operators";
        dn.name = l.prefix;
        dn.layerNodes = l.nodes;
        d.nodes.push_back(std::move(dn));
      }
      d.operatorIndex.emplace(id, box->second);
      continue;
    }
    const ir::Node& n = graph.node(id);
    DisplayNode dn;
    dn.kind = DisplayNodeKind::Operator;
    dn.id = id;
    dn.title = n.opType;
    dn.name = n.name;
    dn.category = categoryOf(n);
    if (n.opType == "FusedElementwise") {
      // A malformed attribute must not stop the graph from drawing.
      try {
        dn.fusedMembers = n.attrs.getStrings("fused_nodes");
        dn.expr = n.attrs.getString("expr", "");
      } catch (const std::exception&) {
      }
    }
    d.operatorIndex.emplace(id, static_cast<int>(d.nodes.size()));
    d.nodes.push_back(std::move(dn));
  }

  std::unordered_map<ir::ValueId, int> inputIndex;
  for (ir::ValueId v : graph.inputs()) {
    if (graph.value(v).constant || inputIndex.count(v)) continue;
    inputIndex.emplace(v, static_cast<int>(d.nodes.size()));
    d.nodes.push_back({DisplayNodeKind::GraphInput, v, "input", graph.value(v).name, ops::OpCategory::Other, {}, {}});
  }

  // The box a value comes from: its live producer or its input pill.
  auto source = [&](ir::ValueId v) -> int {
    const ir::Value& val = graph.value(v);
    if (val.producer != ir::kNone) return d.indexOfNode(val.producer);
    auto it = inputIndex.find(v);
    return it == inputIndex.end() ? -1 : it->second;
  };
  // A node reading one value twice gets one edge.
  std::set<std::tuple<int, int, ir::ValueId>> seen;
  auto addEdge = [&](int from, int to, ir::ValueId v) {
    if (from < 0 || to < 0 || from == to || !seen.emplace(from, to, v).second) return;
    d.edges.push_back({from, to, v, shapeLabel(graph.value(v).type)});
  };
  for (ir::NodeId id : order) {
    const int to = d.indexOfNode(id);
    for (ir::ValueId v : graph.node(id).inputs)
      if (v != ir::kNone) addEdge(source(v), to, v);
  }
  for (ir::ValueId v : graph.outputs()) {
    const int to = static_cast<int>(d.nodes.size());
    d.nodes.push_back({DisplayNodeKind::GraphOutput, v, "output", graph.value(v).name, ops::OpCategory::Other, {}, {}});
    addEdge(source(v), to, v);
  }
  return d;
}

}  // namespace rammer::viz
