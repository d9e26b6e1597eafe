#pragma once
// Small queries over generated sample graphs for the tests.
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace rammer::samples_test {

// The models the build writes (RAMMER_SAMPLE_NAMES, set by CMake), in catalog order.
inline std::vector<std::string> buildSampleNames() {
  std::vector<std::string> out;
  std::stringstream in(RAMMER_SAMPLE_NAMES);
  for (std::string s; std::getline(in, s, ',');) out.push_back(s);
  return out;
}

inline std::map<std::string, int> opHistogram(const ir::Graph& g) {
  std::map<std::string, int> h;
  for (size_t i = 0; i < g.numNodeSlots(); ++i)
    if (!g.node(static_cast<ir::NodeId>(i)).removed) ++h[g.node(static_cast<ir::NodeId>(i)).opType];
  return h;
}

// Live nodes of one op type, in insertion order.
inline std::vector<const ir::Node*> nodesOf(const ir::Graph& g, const std::string& opType) {
  std::vector<const ir::Node*> out;
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    const ir::Node& n = g.node(static_cast<ir::NodeId>(i));
    if (!n.removed && n.opType == opType) out.push_back(&n);
  }
  return out;
}

inline const ir::Node* nodeNamed(const ir::Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.numNodeSlots(); ++i)
    if (g.node(static_cast<ir::NodeId>(i)).name == name) return &g.node(static_cast<ir::NodeId>(i));
  return nullptr;
}

inline const ir::Shape& shapeOf(const ir::Graph& g, ir::ValueId v) { return g.value(v).type.shape; }
inline const ir::Shape& inputShape(const ir::Graph& g, size_t i) { return shapeOf(g, g.inputs().at(i)); }
inline const ir::Shape& outputShape(const ir::Graph& g, size_t i) { return shapeOf(g, g.outputs().at(i)); }

// Weight shape of input slot `slot` of node n (a constant).
inline ir::Shape constShape(const ir::Graph& g, const ir::Node& n, size_t slot) {
  const ir::Value& v = g.value(n.inputs.at(slot));
  return v.constant ? v.constant->shape() : ir::Shape{};
}

// Parameters a paper counts: float constants without BatchNorm's running
// statistics (which our summaries include as weights).
inline int64_t trainableParams(const ir::Graph& g) {
  int64_t n = 0;
  for (size_t i = 0; i < g.numValues(); ++i) {
    const ir::Value& v = g.value(static_cast<ir::ValueId>(i));
    if (!v.constant || v.producer != ir::kNone || v.consumers.empty()) continue;
    if (v.constant->dtype() != ir::DType::Float32) continue;
    const std::string& s = v.name;
    const bool stat = (s.size() > 5 && s.compare(s.size() - 5, 5, ".mean") == 0) ||
                      (s.size() > 4 && s.compare(s.size() - 4, 4, ".var") == 0);
    if (!stat) n += v.constant->numel();
  }
  return n;
}

}  // namespace rammer::samples_test
