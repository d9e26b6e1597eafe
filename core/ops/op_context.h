#pragma once
// What an operator implementation sees of one node: its attributes, the types
// of its inputs and, when known, their values. The same context serves type
// inference (values may be unknown) and computation (all present inputs have
// values).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace rammer::ops {

// Thrown by op implementations on invalid nodes or inputs; the drivers turn
// it into a Diagnostic naming the node.
class OpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OpContext {
 public:
  OpContext(const ir::Node& node, int64_t opset, std::vector<ir::TensorType> inputTypes,
            std::vector<const ir::Tensor*> inputValues)
      : node_(node), opset_(opset), types_(std::move(inputTypes)), values_(std::move(inputValues)) {}

  const ir::Node& node() const { return node_; }
  const ir::Attributes& attrs() const { return node_.attrs; }
  int64_t opset() const { return opset_; }

  // Number of input slots (including omitted optional ones).
  size_t numInputs() const { return types_.size(); }
  // Number of output slots the node declares (some may be omitted).
  size_t numOutputs() const { return node_.outputs.size(); }
  bool hasOutput(size_t i) const { return i < node_.outputs.size() && node_.outputs[i] != ir::kNone; }
  // Input present (not omitted and not an empty name).
  bool has(size_t i) const { return i < types_.size() && types_[i].dtype != ir::DType::Undefined; }

  // Type of a present input; OpError when it is missing.
  const ir::TensorType& type(size_t i) const;
  const ir::Shape& shape(size_t i) const { return type(i).shape; }
  ir::DType dtype(size_t i) const { return type(i).dtype; }
  int64_t rank(size_t i) const;  // OpError when the rank is unknown
  // Value of an input when known (always during compute), else nullptr.
  const ir::Tensor* value(size_t i) const { return i < values_.size() ? values_[i] : nullptr; }
  // Value of a present input; OpError when unknown.
  const ir::Tensor& tensor(size_t i) const;

  // Checks the number of input slots, OpError otherwise.
  void expectInputs(size_t min, size_t max) const;
  // OpError unless input i has one of the listed dtypes.
  void expectDType(size_t i, std::initializer_list<ir::DType> allowed) const;
  [[noreturn]] void fail(const std::string& message) const { throw OpError(message); }

 private:
  const ir::Node& node_;
  int64_t opset_;
  std::vector<ir::TensorType> types_;
  std::vector<const ir::Tensor*> values_;
};

// Normalises a possibly negative axis against `rank`; OpError if out of range.
int64_t normalizeAxis(int64_t axis, int64_t rank, const std::string& what = "axis");

}  // namespace rammer::ops
