#pragma once
// The dataflow graph: nodes (operators) and values (tensors) with producer /
// consumer links kept consistent by the mutators below. Ids are stable
// indices; removed nodes stay as tombstones until compact().
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ir/attributes.h"
#include "core/ir/diagnostic.h"
#include "core/ir/shape.h"
#include "core/ir/tensor.h"

namespace rammer::ir {

using ValueId = int32_t;
using NodeId = int32_t;
inline constexpr int32_t kNone = -1;

struct Value {
  std::string name;
  TensorType type;
  // Symbolic name per dim as declared in the model ("" when none); same rank
  // as type.shape when the model declared a shape, else empty.
  std::vector<std::string> dimParams;
  std::optional<Tensor> constant;  // initializer or constant-derived data
  NodeId producer = kNone;
  std::vector<NodeId> consumers;  // one entry per use (a node may use a value twice)
  bool isGraphInput = false;      // a real input: bound at run time
  bool isGraphOutput = false;
};

struct Node {
  std::string name;
  std::string opType;
  std::string domain;           // "" is the default ONNX domain
  std::vector<ValueId> inputs;  // kNone for an omitted optional input
  std::vector<ValueId> outputs; // kNone for an omitted optional output
  Attributes attrs;
  bool removed = false;

  ValueId input(size_t i) const { return i < inputs.size() ? inputs[i] : kNone; }
  ValueId output(size_t i) const { return i < outputs.size() ? outputs[i] : kNone; }
};

class Graph {
 public:
  std::string name;
  int64_t opsetVersion = 0;

  // A new value; names must be unique (std::invalid_argument otherwise).
  ValueId addValue(const std::string& name, TensorType type = {});
  // Adds a node and links its values; throws std::invalid_argument when an
  // output already has a producer.
  NodeId addNode(Node node);
  // Unlinks and tombstones a node; its outputs keep no producer.
  void removeNode(NodeId id);
  // Points every use of `from` (node inputs and graph outputs) at `to`.
  void replaceAllUses(ValueId from, ValueId to);
  void setNodeInput(NodeId id, size_t slot, ValueId v);
  void addInput(ValueId v);
  void addOutput(ValueId v);
  void setOutputs(std::vector<ValueId> outputs);

  Value& value(ValueId id) { return values_.at(static_cast<size_t>(id)); }
  const Value& value(ValueId id) const { return values_.at(static_cast<size_t>(id)); }
  Node& node(NodeId id) { return nodes_.at(static_cast<size_t>(id)); }
  const Node& node(NodeId id) const { return nodes_.at(static_cast<size_t>(id)); }
  size_t numValues() const { return values_.size(); }
  size_t numNodeSlots() const { return nodes_.size(); }  // includes tombstones
  size_t numNodes() const;                               // live nodes only
  std::optional<ValueId> findValue(const std::string& name) const;
  // A value name not used yet, derived from `base`.
  std::string uniqueValueName(const std::string& base) const;

  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }

  // Live nodes in a topological order (stable: ties keep insertion order).
  // An error naming a node on a cycle when there is one.
  Result<std::vector<NodeId>> topologicalOrder() const;

  // Drops tombstones and values nothing refers to; renumbers ids.
  void compact();

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
  std::unordered_map<std::string, ValueId> byName_;
};

// The data of `v` when it is a float32 constant (an initializer or a folded
// value); nullptr otherwise, and for kNone.
const Tensor* floatConstant(const Graph& g, ValueId v);

}  // namespace rammer::ir
