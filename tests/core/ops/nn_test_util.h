#pragma once
// Helpers for the conv / matmul / pool op tests: run one op of a registry
// holding only those families on given tensors or types, and compare results
// with literals computed independently (torch 1.13, see each test).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/graph.h"
#include "core/ops/op_registry.h"

namespace rammer::ops::nntest {

inline const OpRegistry& registry() {
  static const OpRegistry r = [] {
    OpRegistry reg;
    registerConvOps(reg);
    registerMatMulOps(reg);
    registerPoolOps(reg);
    return reg;
  }();
  return r;
}

inline const OpDef& def(const std::string& op) {
  const OpDef* d = registry().find("", op);
  if (!d) throw std::runtime_error("op not registered: " + op);
  return *d;
}

// The test inputs: ((i*a + b) mod m - m/2) / 4, exact in float so most
// expected values are exact too. The generator script uses the same formula.
inline std::vector<float> pattern(int64_t n, int64_t a, int64_t b, int64_t m = 13) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(((i * a + b) % m - m / 2) * 0.25);
  return v;
}

inline ir::Tensor patternTensor(ir::Shape shape, int64_t a, int64_t b) {
  return ir::Tensor::fromVector<float>(shape, pattern(ir::numElements(shape), a, b));
}

using Attrs = std::vector<std::pair<std::string, ir::AttrValue>>;

inline ir::Node makeNode(const std::string& op, size_t numInputs, const std::vector<bool>& present, size_t numOutputs,
                         const Attrs& attrs) {
  ir::Node n;
  n.name = op + "_node";
  n.opType = op;
  for (size_t i = 0; i < numInputs; ++i) n.inputs.push_back(present[i] ? static_cast<ir::ValueId>(i) : ir::kNone);
  for (size_t i = 0; i < numOutputs; ++i) n.outputs.push_back(static_cast<ir::ValueId>(100 + i));
  for (const auto& [k, v] : attrs) n.attrs.set(k, v);
  return n;
}

// Type inference only; nullptr-free types (Undefined dtype = omitted input).
inline std::vector<ir::TensorType> infer(const std::string& op, const std::vector<ir::TensorType>& types,
                                         const Attrs& attrs = {}, size_t numOutputs = 1, int64_t opset = 17) {
  std::vector<bool> present;
  for (const auto& t : types) present.push_back(t.dtype != ir::DType::Undefined);
  ir::Node node = makeNode(op, types.size(), present, numOutputs, attrs);
  OpContext ctx(node, opset, types, std::vector<const ir::Tensor*>(types.size(), nullptr));
  return def(op).infer(ctx);
}

// Infers and computes; checks the computed types match the inferred ones.
// nullptr inputs are omitted optional inputs.
inline std::vector<ir::Tensor> run(const std::string& op, const std::vector<const ir::Tensor*>& inputs,
                                   const Attrs& attrs = {}, size_t numOutputs = 1, int64_t opset = 17) {
  std::vector<bool> present;
  std::vector<ir::TensorType> types;
  for (const ir::Tensor* t : inputs) {
    present.push_back(t != nullptr);
    types.push_back(t ? t->type() : ir::TensorType{});
  }
  ir::Node node = makeNode(op, inputs.size(), present, numOutputs, attrs);
  OpContext ctx(node, opset, types, inputs);
  std::vector<ir::TensorType> inferred = def(op).infer(ctx);
  std::vector<ir::Tensor> out = def(op).compute(ctx);
  EXPECT_GE(out.size(), numOutputs);
  for (size_t i = 0; i < numOutputs && i < out.size() && i < inferred.size(); ++i)
    EXPECT_EQ(inferred[i], out[i].type()) << op << " output " << i << ": inferred " << ir::typeToString(inferred[i])
                                          << ", computed " << ir::typeToString(out[i].type());
  return out;
}

inline double flops(const std::string& op, const std::vector<ir::TensorType>& types, const Attrs& attrs = {}) {
  std::vector<bool> present;
  for (const auto& t : types) present.push_back(t.dtype != ir::DType::Undefined);
  ir::Node node = makeNode(op, types.size(), present, 1, attrs);
  OpContext ctx(node, 17, types, std::vector<const ir::Tensor*>(types.size(), nullptr));
  std::vector<ir::TensorType> outs = def(op).infer(ctx);
  return def(op).flops(ctx, outs);
}

// The message of the OpError the op throws on inference ("" when none).
inline std::string inferError(const std::string& op, const std::vector<ir::TensorType>& types, const Attrs& attrs = {},
                              size_t numOutputs = 1) {
  try {
    infer(op, types, attrs, numOutputs);
  } catch (const OpError& e) {
    return e.what();
  }
  return "";
}

inline ir::TensorType f32(ir::Shape s) { return ir::TensorType{ir::DType::Float32, std::move(s), true}; }

inline void expectTensor(const ir::Tensor& t, const ir::Shape& shape, const std::vector<double>& want,
                         double tol = 1e-5) {
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(static_cast<size_t>(t.numel()), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(t.getDouble(static_cast<int64_t>(i)), want[i], tol * (1.0 + std::abs(want[i]))) << "element " << i;
}

}  // namespace rammer::ops::nntest
