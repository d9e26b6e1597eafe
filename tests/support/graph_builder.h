#pragma once
// Builds small ir::Graphs in tests without going through ONNX files.
#include <random>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/ops/type_inference.h"

namespace rammer::testing {

class GraphBuilder {
 public:
  GraphBuilder() { g_.opsetVersion = 17; }

  ir::ValueId input(const std::string& name, ir::Shape shape, ir::DType dtype = ir::DType::Float32) {
    ir::ValueId v = g_.addValue(name, {dtype, std::move(shape), true});
    g_.addInput(v);
    return v;
  }
  ir::ValueId constant(const std::string& name, ir::Tensor t) {
    ir::ValueId v = g_.addValue(name, t.type());
    g_.value(v).constant = std::move(t);
    return v;
  }
  // Adds a node with `numOutputs` fresh outputs named "<name>:k"; returns them.
  std::vector<ir::ValueId> node(const std::string& op, const std::string& name, std::vector<ir::ValueId> inputs,
                                ir::Attributes attrs = {}, size_t numOutputs = 1) {
    ir::Node n;
    n.opType = op;
    n.name = name;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    for (size_t i = 0; i < numOutputs; ++i)
      n.outputs.push_back(g_.addValue(numOutputs == 1 ? name : name + ":" + std::to_string(i)));
    std::vector<ir::ValueId> outs = n.outputs;
    g_.addNode(std::move(n));
    return outs;
  }
  ir::ValueId op(const std::string& op, const std::string& name, std::vector<ir::ValueId> inputs,
                 ir::Attributes attrs = {}) {
    return node(op, name, std::move(inputs), std::move(attrs))[0];
  }
  void output(ir::ValueId v) { g_.addOutput(v); }

  // Infers types; the test fails loudly through the returned diagnostics.
  std::vector<ir::Diagnostic> infer() { return ops::inferTypes(g_); }
  ir::Graph& graph() { return g_; }

 private:
  ir::Graph g_;
};

inline ir::Attributes attrs(std::initializer_list<std::pair<std::string, ir::AttrValue>> kv) {
  ir::Attributes a;
  for (auto& [k, v] : kv) a.set(k, v);
  return a;
}

// Floats uniform in [lo, hi], the same for the same seed.
inline ir::Tensor randomTensor(ir::Shape shape, uint32_t seed, float lo = -2, float hi = 2) {
  ir::Tensor t(ir::DType::Float32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& v : t.values<float>()) v = d(rng);
  return t;
}

}  // namespace rammer::testing
