#pragma once
// Builds a single node with given inputs (values or types only) and runs an
// op's infer/compute on it through the builtin registry.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/ops/op_registry.h"

namespace rammer::ops::testing {

class NodeCase {
 public:
  explicit NodeCase(std::string opType, int64_t opset = 17) : opset_(opset) {
    node_.opType = std::move(opType);
    node_.outputs = {0};
  }

  // An op of another domain (kRammerDomain for ours).
  NodeCase& domain(std::string d) {
    node_.domain = std::move(d);
    return *this;
  }
  NodeCase& attr(const std::string& name, ir::AttrValue v) {
    node_.attrs.set(name, std::move(v));
    return *this;
  }
  // An input whose value is known.
  NodeCase& in(ir::Tensor t) {
    types_.push_back(t.type());
    values_.push_back(std::move(t));
    return *this;
  }
  // An input known only by type.
  NodeCase& in(ir::TensorType t) {
    types_.push_back(std::move(t));
    values_.emplace_back();
    return *this;
  }
  // An omitted optional input.
  NodeCase& omitted() {
    types_.emplace_back();
    values_.emplace_back();
    return *this;
  }
  NodeCase& outputs(size_t n) {
    node_.outputs.assign(n, 0);
    for (size_t i = 0; i < n; ++i) node_.outputs[i] = static_cast<ir::ValueId>(i);
    return *this;
  }
  NodeCase& omitOutput(size_t i) {
    node_.outputs.at(i) = ir::kNone;
    return *this;
  }

  const OpDef& def() const {
    const OpDef* d = OpRegistry::builtin().find(node_.domain, node_.opType);
    if (!d) throw std::runtime_error("op " + node_.opType + " is not registered");
    return *d;
  }
  // The context points into this object: keep it alive while it is used.
  OpContext context() const {
    std::vector<const ir::Tensor*> values;
    for (const auto& v : values_) values.push_back(v ? &*v : nullptr);
    return OpContext(node_, opset_, types_, std::move(values));
  }
  std::vector<ir::TensorType> infer() const { return def().infer(context()); }
  std::vector<ir::Tensor> compute() const { return def().compute(context()); }
  ir::TensorType infer1() const { return infer().at(0); }
  ir::Tensor compute1() const { return compute().at(0); }

 private:
  ir::Node node_;
  int64_t opset_;
  std::vector<ir::TensorType> types_;
  std::vector<std::optional<ir::Tensor>> values_;  // nullopt: value unknown or input omitted
};

inline ir::Tensor f32(ir::Shape s, std::vector<float> v) { return ir::Tensor::fromVector<float>(std::move(s), v); }
inline ir::Tensor i64(ir::Shape s, std::vector<int64_t> v) { return ir::Tensor::fromVector<int64_t>(std::move(s), v); }
inline ir::Tensor i32(ir::Shape s, std::vector<int32_t> v) { return ir::Tensor::fromVector<int32_t>(std::move(s), v); }
inline ir::Tensor ints(std::vector<int64_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return i64({n}, v);
}
inline ir::Tensor strs(ir::Shape s, std::vector<std::string> v) {
  ir::Tensor t(ir::DType::String, std::move(s));
  t.strings() = std::move(v);
  return t;
}
// 0, 1, 2, ... as float32.
inline ir::Tensor iota32(ir::Shape s) {
  ir::Tensor t(ir::DType::Float32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}
inline ir::TensorType type(ir::DType d, ir::Shape s) { return ir::TensorType{d, std::move(s), true}; }

template <class T>
std::vector<T> vals(const ir::Tensor& t) {
  auto s = t.values<T>();
  return std::vector<T>(s.begin(), s.end());
}

// For EXPECT_PRED2(hasSubstr, message, "part").
inline bool hasSubstr(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Runs `fn` and returns the OpError's message ("" and a test failure when
// nothing or something else is thrown).
template <class Fn>
std::string opError(Fn&& fn) {
  try {
    fn();
  } catch (const OpError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected OpError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected OpError, nothing was thrown";
  return "";
}

}  // namespace rammer::ops::testing
