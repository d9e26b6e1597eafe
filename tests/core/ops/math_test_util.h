#pragma once
// Helpers for the elementwise / unary / reduce op tests: run one op through
// the builtin registry on literal tensors, as the executor would.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/ops/op_registry.h"

namespace rammer::ops::mathtest {

inline constexpr int64_t kOpset = 17;

template <class T>
ir::Tensor tensor(ir::Shape shape, std::vector<T> values) {
  return ir::Tensor::fromVector<T>(std::move(shape), values);
}
inline ir::Tensor f32(ir::Shape shape, std::vector<float> values) { return tensor<float>(std::move(shape), values); }
inline ir::Tensor i64(ir::Shape shape, std::vector<int64_t> values) { return tensor<int64_t>(std::move(shape), values); }

// A node of `type` with `numInputs` input and `numOutputs` output slots;
// value ids are placeholders (the ops never look them up).
inline ir::Node makeNode(const std::string& type, size_t numInputs, size_t numOutputs, ir::Attributes attrs = {}) {
  ir::Node n;
  n.name = type + "_node";
  n.opType = type;
  for (size_t i = 0; i < numInputs; ++i) n.inputs.push_back(static_cast<ir::ValueId>(i));
  for (size_t i = 0; i < numOutputs; ++i) n.outputs.push_back(static_cast<ir::ValueId>(numInputs + i));
  n.attrs = std::move(attrs);
  return n;
}

inline const OpDef& def(const std::string& type) {
  const OpDef* d = OpRegistry::builtin().find("", type);
  if (!d) throw std::runtime_error("op not registered: " + type);
  return *d;
}

// Runs compute; std::nullopt marks an omitted optional input.
inline std::vector<ir::Tensor> runOp(const std::string& type, const std::vector<std::optional<ir::Tensor>>& inputs,
                                     ir::Attributes attrs = {}, int64_t opset = kOpset, size_t numOutputs = 1) {
  ir::Node node = makeNode(type, inputs.size(), numOutputs, std::move(attrs));
  std::vector<ir::TensorType> types;
  std::vector<const ir::Tensor*> values;
  for (const auto& in : inputs) {
    types.push_back(in ? in->type() : ir::TensorType{});
    values.push_back(in ? &*in : nullptr);
  }
  OpContext ctx(node, opset, types, values);
  return def(type).compute(ctx);
}

inline ir::Tensor run1(const std::string& type, const std::vector<std::optional<ir::Tensor>>& inputs,
                       ir::Attributes attrs = {}, int64_t opset = kOpset) {
  auto outs = runOp(type, inputs, std::move(attrs), opset);
  if (outs.size() != 1) throw std::runtime_error("expected one output");
  return std::move(outs[0]);
}

// Runs infer on types only (values unknown unless given).
inline std::vector<ir::TensorType> inferOp(const std::string& type, const std::vector<ir::TensorType>& types,
                                           ir::Attributes attrs = {}, int64_t opset = kOpset,
                                           std::vector<const ir::Tensor*> values = {}, size_t numOutputs = 1) {
  ir::Node node = makeNode(type, types.size(), numOutputs, std::move(attrs));
  values.resize(types.size(), nullptr);
  OpContext ctx(node, opset, types, values);
  return def(type).infer(ctx);
}

inline double flopsOf(const std::string& type, const std::vector<ir::TensorType>& types, ir::Attributes attrs = {},
                      int64_t opset = kOpset) {
  ir::Node node = makeNode(type, types.size(), 1, std::move(attrs));
  OpContext ctx(node, opset, types, std::vector<const ir::Tensor*>(types.size(), nullptr));
  auto outs = def(type).infer(ctx);
  return def(type).flops ? def(type).flops(ctx, outs) : 0.0;
}

inline ir::Attributes attrs(std::initializer_list<std::pair<const char*, ir::AttrValue>> list) {
  ir::Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

inline ir::TensorType tt(ir::DType d, ir::Shape s) { return ir::TensorType{d, std::move(s), true}; }

// Shape, dtype and values within a relative/absolute tolerance.
template <class T>
void expectTensor(const ir::Tensor& got, const ir::Shape& shape, const std::vector<T>& want, double tol = 1e-5) {
  ASSERT_EQ(got.dtype(), ir::dtypeOf<T>());
  ASSERT_EQ(got.shape(), shape);
  ASSERT_EQ(static_cast<size_t>(got.numel()), want.size());
  auto v = got.values<T>();
  for (size_t i = 0; i < want.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(v[i])) << "at " << i;
      } else if (std::isinf(want[i])) {
        EXPECT_EQ(v[i], want[i]) << "at " << i;
      } else {
        EXPECT_NEAR(v[i], want[i], tol * std::max(1.0, std::abs(static_cast<double>(want[i])))) << "at " << i;
      }
    } else {
      EXPECT_EQ(v[i], want[i]) << "at " << i;
    }
  }
}

// Runs `fn` and checks it throws OpError whose message contains every part.
template <class F>
void expectOpError(F fn, std::initializer_list<const char*> parts) {
  try {
    fn();
    ADD_FAILURE() << "expected OpError";
  } catch (const OpError& e) {
    for (const char* p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

}  // namespace rammer::ops::mathtest
