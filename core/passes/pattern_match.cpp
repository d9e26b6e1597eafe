#include "core/passes/pattern_match.h"

#include <algorithm>

namespace rammer::passes {

ir::NodeId producerOf(const ir::Graph& g, ir::ValueId v, const char* op) {
  if (v == ir::kNone) return ir::kNone;
  const ir::NodeId p = g.value(v).producer;
  if (p == ir::kNone) return ir::kNone;
  const ir::Node& n = g.node(p);
  return !n.removed && n.domain.empty() && n.opType == op ? p : ir::kNone;
}

bool readOnlyBy(const ir::Graph& g, ir::ValueId v, const std::set<ir::NodeId>& readers) {
  const ir::Value& value = g.value(v);
  if (value.isGraphOutput) return false;
  return std::all_of(value.consumers.begin(), value.consumers.end(),
                     [&](ir::NodeId c) { return readers.count(c) != 0; });
}

std::optional<float> scalarConstant(const ir::Graph& g, ir::ValueId v) {
  const ir::Tensor* t = ir::floatConstant(g, v);
  if (!t || t->numel() != 1) return std::nullopt;
  return t->data<float>()[0];
}

}  // namespace rammer::passes
