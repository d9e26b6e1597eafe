#pragma once
// Helpers for the recurrent and normalization op tests: deterministic input
// data (the same formula the Python reference scripts used) and calls of one
// op's infer / compute / flops through the builtin registry.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/ops/op_registry.h"

namespace rammer::ops::rnntest {

// scale * sin(0.7 * i + seed): numpy's `wave` in the reference scripts.
inline std::vector<float> wave(int64_t n, double seed, double scale = 0.5, double offset = 0.0) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(scale * std::sin(0.7 * static_cast<double>(i) + seed));
  for (float& x : v) x += static_cast<float>(offset);
  return v;
}

inline ir::Tensor f32(ir::Shape shape, const std::vector<float>& values) {
  return ir::Tensor::fromVector<float>(std::move(shape), values);
}
inline ir::Tensor waveTensor(ir::Shape shape, double seed, double scale = 0.5, double offset = 0.0) {
  return f32(shape, wave(ir::numElements(shape), seed, scale, offset));
}

inline ir::Attributes attrs(std::initializer_list<std::pair<std::string, ir::AttrValue>> list) {
  ir::Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

// One node of `type`; std::nullopt inputs and false outputs are omitted slots.
struct OpCall {
  std::string type;
  std::vector<std::optional<ir::Tensor>> inputs;
  ir::Attributes attrs = {};
  std::vector<bool> outputs{true};
  int64_t opset = 17;

  ir::Node node() const {
    ir::Node n;
    n.name = type + "_node";
    n.opType = type;
    for (size_t i = 0; i < inputs.size(); ++i) n.inputs.push_back(inputs[i] ? static_cast<ir::ValueId>(i) : ir::kNone);
    for (size_t i = 0; i < outputs.size(); ++i)
      n.outputs.push_back(outputs[i] ? static_cast<ir::ValueId>(inputs.size() + i) : ir::kNone);
    n.attrs = attrs;
    return n;
  }
  const OpDef& def() const {
    const OpDef* d = OpRegistry::builtin().find("", type);
    if (!d) throw std::runtime_error("op not registered: " + type);
    return *d;
  }
  std::vector<ir::TensorType> types() const {
    std::vector<ir::TensorType> t;
    for (const auto& in : inputs) t.push_back(in ? in->type() : ir::TensorType{});
    return t;
  }
  // Runs compute with every input known, as the executor does.
  std::vector<ir::Tensor> compute() const {
    ir::Node n = node();
    std::vector<const ir::Tensor*> values;
    for (const auto& in : inputs) values.push_back(in ? &*in : nullptr);
    return def().compute(OpContext(n, opset, types(), values));
  }
  // Runs infer on the given input types (default: those of `inputs`), values unknown.
  std::vector<ir::TensorType> infer(std::optional<std::vector<ir::TensorType>> inputTypes = std::nullopt) const {
    ir::Node n = node();
    std::vector<ir::TensorType> t = inputTypes ? *inputTypes : types();
    return def().infer(OpContext(n, opset, t, std::vector<const ir::Tensor*>(t.size(), nullptr)));
  }
  double flops() const {
    ir::Node n = node();
    OpContext ctx(n, opset, types(), std::vector<const ir::Tensor*>(inputs.size(), nullptr));
    std::vector<ir::TensorType> out = def().infer(ctx);
    return def().flops ? def().flops(ctx, out) : 0.0;
  }
};

// The OpError message `f` throws; fails the test when it throws nothing or something else.
inline std::string opErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const OpError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected an OpError, got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected an OpError, nothing was thrown";
  return {};
}

inline void expectTensor(const ir::Tensor& t, const ir::Shape& shape, const std::vector<float>& expected,
                         float tol = 1e-5f) {
  ASSERT_EQ(t.dtype(), ir::DType::Float32);
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(static_cast<size_t>(t.numel()), expected.size());
  const float* v = t.data<float>();
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(v[i], expected[i], tol) << "at flat index " << i;
}

}  // namespace rammer::ops::rnntest
