#include "core/passes/common_subexpression_elimination.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace rammer::passes {

namespace {

constexpr int64_t kMaxConstantElements = 4096;

void appendTensor(std::string& key, const ir::Tensor& t) {
  key += std::to_string(static_cast<int>(t.dtype())) + ir::shapeToString(t.shape());
  if (t.dtype() == ir::DType::String) {
    for (const auto& s : t.strings()) key += std::to_string(s.size()) + ':' + s;
  } else {
    key.append(reinterpret_cast<const char*>(t.raw()), t.byteSize());
  }
}

// An exact, unambiguous encoding of the attributes (attrToString abbreviates).
void appendAttrs(std::string& key, const ir::Attributes& attrs) {
  for (const auto& [name, v] : attrs.all()) {
    key += '|' + name + '=' + std::to_string(v.index()) + ':';
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, ir::Tensor>) appendTensor(key, x);
          else if constexpr (std::is_same_v<T, std::string>) key += std::to_string(x.size()) + ':' + x;
          else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, float>)
            key.append(reinterpret_cast<const char*>(&x), sizeof x);
          else if constexpr (std::is_same_v<T, std::vector<std::string>>)
            for (const auto& s : x) key += std::to_string(s.size()) + ':' + s;
          else key.append(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(x[0]));
        },
        v);
  }
}

bool writesGraphOutput(const ir::Graph& g, const ir::Node& n) {
  return std::any_of(n.outputs.begin(), n.outputs.end(),
                     [&](ir::ValueId v) { return v != ir::kNone && g.value(v).isGraphOutput; });
}

// Small constants with equal contents become one value.
size_t mergeConstants(ir::Graph& g) {
  std::unordered_map<std::string, ir::ValueId> seen;
  size_t merged = 0;
  for (size_t i = 0; i < g.numValues(); ++i) {
    auto id = static_cast<ir::ValueId>(i);
    const ir::Value& v = g.value(id);
    if (!v.constant || v.producer != ir::kNone || v.isGraphOutput || v.consumers.empty() ||
        v.constant->numel() > kMaxConstantElements)
      continue;
    std::string key;
    appendTensor(key, *v.constant);
    auto [it, inserted] = seen.emplace(std::move(key), id);
    if (inserted) continue;
    g.replaceAllUses(id, it->second);
    ++merged;
  }
  return merged;
}

}  // namespace

PassResult CommonSubexpressionElimination::run(ir::Graph& g, PassContext& ctx) {
  size_t constants = mergeConstants(g);
  if (constants) ctx.note("merged " + std::to_string(constants) + " duplicate constants");

  auto order = g.topologicalOrder();
  if (!order) return constants > 0;
  std::unordered_map<std::string, ir::NodeId> seen;
  size_t nodes = 0;
  for (ir::NodeId id : *order) {
    const ir::Node& n = g.node(id);
    std::string key = n.domain + '/' + n.opType + '(';
    for (ir::ValueId in : n.inputs) key += std::to_string(in) + ',';
    key += ")->" + std::to_string(n.outputs.size());
    appendAttrs(key, n.attrs);
    auto [it, inserted] = seen.emplace(std::move(key), id);
    if (inserted || writesGraphOutput(g, n)) continue;
    const ir::Node& keep = g.node(it->second);
    bool covered = true;  // every output of `n` must exist on `keep`
    for (size_t i = 0; i < n.outputs.size(); ++i)
      covered = covered && (n.outputs[i] == ir::kNone || keep.outputs[i] != ir::kNone);
    if (!covered) continue;
    ctx.note("merged " + n.opType + " '" + n.name + "' into '" + keep.name + "'");
    g.removeNode(id);
    for (size_t i = 0; i < n.outputs.size(); ++i)
      if (n.outputs[i] != ir::kNone) g.replaceAllUses(n.outputs[i], keep.outputs[i]);
    ++nodes;
  }
  return constants + nodes > 0;
}

}  // namespace rammer::passes
