#include "core/ir/graph.h"

#include <algorithm>
#include <queue>
#include <stdexcept>

namespace rammer::ir {

ValueId Graph::addValue(const std::string& name, TensorType type) {
  if (byName_.count(name)) throw std::invalid_argument("value name '" + name + "' is used twice");
  auto id = static_cast<ValueId>(values_.size());
  Value v;
  v.name = name;
  v.type = std::move(type);
  values_.push_back(std::move(v));
  byName_.emplace(name, id);
  return id;
}

NodeId Graph::addNode(Node node) {
  auto id = static_cast<NodeId>(nodes_.size());
  for (ValueId out : node.outputs) {
    if (out == kNone) continue;
    Value& v = value(out);
    if (v.producer != kNone)
      throw std::invalid_argument("value '" + v.name + "' is produced by two nodes ('" +
                                  nodes_[static_cast<size_t>(v.producer)].name + "' and '" + node.name + "')");
  }
  for (ValueId out : node.outputs)
    if (out != kNone) value(out).producer = id;
  for (ValueId in : node.inputs)
    if (in != kNone) value(in).consumers.push_back(id);
  nodes_.push_back(std::move(node));
  return id;
}

namespace {
void eraseOne(std::vector<NodeId>& xs, NodeId x) {
  auto it = std::find(xs.begin(), xs.end(), x);
  if (it != xs.end()) xs.erase(it);
}
}  // namespace

void Graph::removeNode(NodeId id) {
  Node& n = node(id);
  if (n.removed) return;
  for (ValueId in : n.inputs)
    if (in != kNone) eraseOne(value(in).consumers, id);
  for (ValueId out : n.outputs)
    if (out != kNone && value(out).producer == id) value(out).producer = kNone;
  n.removed = true;
}

void Graph::replaceAllUses(ValueId from, ValueId to) {
  if (from == to) return;
  std::vector<NodeId> users = value(from).consumers;
  for (NodeId u : users) {
    for (ValueId& in : node(u).inputs) {
      if (in == from) {
        in = to;
        value(to).consumers.push_back(u);
      }
    }
  }
  value(from).consumers.clear();
  for (ValueId& out : outputs_) {
    if (out == from) {
      out = to;
      value(to).isGraphOutput = true;
    }
  }
  if (std::find(outputs_.begin(), outputs_.end(), from) == outputs_.end()) value(from).isGraphOutput = false;
}

void Graph::setNodeInput(NodeId id, size_t slot, ValueId v) {
  Node& n = node(id);
  if (slot >= n.inputs.size()) n.inputs.resize(slot + 1, kNone);
  if (n.inputs[slot] != kNone) eraseOne(value(n.inputs[slot]).consumers, id);
  n.inputs[slot] = v;
  if (v != kNone) value(v).consumers.push_back(id);
}

void Graph::addInput(ValueId v) {
  value(v).isGraphInput = true;
  inputs_.push_back(v);
}

void Graph::addOutput(ValueId v) {
  value(v).isGraphOutput = true;
  outputs_.push_back(v);
}

void Graph::setOutputs(std::vector<ValueId> outputs) {
  for (ValueId v : outputs_) value(v).isGraphOutput = false;
  outputs_ = std::move(outputs);
  for (ValueId v : outputs_) value(v).isGraphOutput = true;
}

size_t Graph::numNodes() const {
  return static_cast<size_t>(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return !n.removed; }));
}

std::optional<ValueId> Graph::findValue(const std::string& name) const {
  auto it = byName_.find(name);
  if (it == byName_.end()) return std::nullopt;
  return it->second;
}

std::string Graph::uniqueValueName(const std::string& base) const {
  if (!byName_.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!byName_.count(candidate)) return candidate;
  }
}

Result<std::vector<NodeId>> Graph::topologicalOrder() const {
  const size_t n = nodes_.size();
  std::vector<int> indegree(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (nodes_[i].removed) continue;
    for (ValueId in : nodes_[i].inputs)
      if (in != kNone && value(in).producer != kNone) ++indegree[i];
  }
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  size_t live = 0;
  for (size_t i = 0; i < n; ++i) {
    if (nodes_[i].removed) continue;
    ++live;
    if (indegree[i] == 0) ready.push(static_cast<NodeId>(i));
  }
  std::vector<NodeId> order;
  order.reserve(live);
  while (!ready.empty()) {
    NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (ValueId out : nodes_[static_cast<size_t>(id)].outputs) {
      if (out == kNone) continue;
      for (NodeId c : value(out).consumers)
        if (--indegree[static_cast<size_t>(c)] == 0) ready.push(c);
    }
  }
  if (order.size() == live) return order;

  // Walk producer links backwards from a blocked node until one repeats: that
  // loop is a cycle, reported by node names.
  NodeId start = kNone;
  for (size_t i = 0; i < n && start == kNone; ++i)
    if (!nodes_[i].removed && indegree[i] > 0) start = static_cast<NodeId>(i);
  std::vector<NodeId> path;
  std::vector<int> seenAt(n, -1);
  NodeId cur = start;
  while (seenAt[static_cast<size_t>(cur)] < 0) {
    seenAt[static_cast<size_t>(cur)] = static_cast<int>(path.size());
    path.push_back(cur);
    NodeId next = kNone;
    for (ValueId in : nodes_[static_cast<size_t>(cur)].inputs) {
      if (in == kNone) continue;
      NodeId p = value(in).producer;
      if (p != kNone && indegree[static_cast<size_t>(p)] > 0) { next = p; break; }
    }
    if (next == kNone) break;
    cur = next;
  }
  std::string cycle;
  for (size_t i = path.size(); i-- > static_cast<size_t>(std::max(0, seenAt[static_cast<size_t>(cur)]));) {
    cycle += "'" + nodes_[static_cast<size_t>(path[i])].name + "' -> ";
  }
  cycle += "'" + nodes_[static_cast<size_t>(cur)].name + "'";
  return makeError("the graph has a cycle: " + cycle, nodes_[static_cast<size_t>(cur)].name);
}

void Graph::compact() {
  std::vector<char> used(values_.size(), 0);
  for (ValueId v : inputs_) used[static_cast<size_t>(v)] = 1;
  for (ValueId v : outputs_) used[static_cast<size_t>(v)] = 1;
  for (const Node& nd : nodes_) {
    if (nd.removed) continue;
    for (ValueId v : nd.inputs) if (v != kNone) used[static_cast<size_t>(v)] = 1;
    for (ValueId v : nd.outputs) if (v != kNone) used[static_cast<size_t>(v)] = 1;
  }
  std::vector<ValueId> valueMap(values_.size(), kNone);
  std::vector<Value> newValues;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (!used[i]) continue;
    valueMap[i] = static_cast<ValueId>(newValues.size());
    newValues.push_back(std::move(values_[i]));
  }
  std::vector<NodeId> nodeMap(nodes_.size(), kNone);
  std::vector<Node> newNodes;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].removed) continue;
    nodeMap[i] = static_cast<NodeId>(newNodes.size());
    newNodes.push_back(std::move(nodes_[i]));
  }
  auto mapValue = [&](ValueId v) { return v == kNone ? kNone : valueMap[static_cast<size_t>(v)]; };
  for (Node& nd : newNodes) {
    for (ValueId& v : nd.inputs) v = mapValue(v);
    for (ValueId& v : nd.outputs) v = mapValue(v);
  }
  for (Value& v : newValues) {
    v.producer = v.producer == kNone ? kNone : nodeMap[static_cast<size_t>(v.producer)];
    std::vector<NodeId> cs;
    for (NodeId c : v.consumers)
      if (nodeMap[static_cast<size_t>(c)] != kNone) cs.push_back(nodeMap[static_cast<size_t>(c)]);
    v.consumers = std::move(cs);
  }
  for (ValueId& v : inputs_) v = mapValue(v);
  for (ValueId& v : outputs_) v = mapValue(v);
  values_ = std::move(newValues);
  nodes_ = std::move(newNodes);
  byName_.clear();
  for (size_t i = 0; i < values_.size(); ++i) byName_.emplace(values_[i].name, static_cast<ValueId>(i));
}

const Tensor* floatConstant(const Graph& g, ValueId v) {
  if (v == kNone) return nullptr;
  const Value& val = g.value(v);
  return val.constant && val.constant->dtype() == DType::Float32 ? &*val.constant : nullptr;
}

}  // namespace rammer::ir
