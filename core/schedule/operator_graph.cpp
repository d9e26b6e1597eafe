#include "core/schedule/operator_graph.h"

#include <algorithm>

namespace rammer::schedule {

namespace {
void sortUnique(std::vector<int32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}
}  // namespace

std::optional<int32_t> OperatorGraph::find(const std::string& name) const {
  auto it = byName.find(name);
  if (it == byName.end()) return std::nullopt;
  return it->second;
}

std::vector<std::vector<int32_t>> OperatorGraph::waves() const {
  // Longest-path level = the round of Kahn's algorithm the op becomes ready in.
  std::vector<int> level(ops.size(), -1);
  std::vector<std::vector<int32_t>> out;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].isView) continue;
    int l = 0;
    for (int32_t p : ops[i].producers) l = std::max(l, level[static_cast<size_t>(p)] + 1);
    level[i] = l;
    if (out.size() <= static_cast<size_t>(l)) out.resize(static_cast<size_t>(l) + 1);
    out[static_cast<size_t>(l)].push_back(static_cast<int32_t>(i));
  }
  return out;
}

ir::Result<OperatorGraph> buildOperatorGraph(const ir::Graph& graph, const std::function<bool(ir::NodeId)>& isView) {
  auto topo = graph.topologicalOrder();
  if (!topo) return topo.errors();
  OperatorGraph g;
  std::map<ir::NodeId, int32_t> index;
  for (ir::NodeId id : *topo) {
    const ir::Node& n = graph.node(id);
    OperatorNode op;
    op.node = id;
    op.name = n.name;
    op.opType = n.opType;
    op.isView = isView(id);
    const auto at = static_cast<int32_t>(g.ops.size());
    for (ir::ValueId v : n.inputs) {
      if (v == ir::kNone) continue;
      const ir::NodeId p = graph.value(v).producer;
      if (p == ir::kNone) continue;  // graph input or constant
      auto it = index.find(p);
      if (it == index.end()) continue;  // cannot happen in a topological order
      const OperatorNode& prod = g.ops[static_cast<size_t>(it->second)];
      if (prod.isView)
        op.producers.insert(op.producers.end(), prod.producers.begin(), prod.producers.end());
      else
        op.producers.push_back(it->second);
    }
    sortUnique(op.producers);
    if (!op.isView)
      for (int32_t p : op.producers) g.ops[static_cast<size_t>(p)].consumers.push_back(at);
    if (!n.name.empty()) g.byName.emplace(n.name, at);
    index.emplace(id, at);
    g.ops.push_back(std::move(op));
  }
  for (auto& op : g.ops) sortUnique(op.consumers);
  return g;
}

}  // namespace rammer::schedule
