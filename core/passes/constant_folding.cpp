#include "core/passes/constant_folding.h"

#include "core/ops/type_inference.h"
#include "core/ops/op_compute.h"

namespace rammer::passes {

namespace {

bool foldable(const ir::Graph& g, const ir::Node& n, const ops::OpDef& def, int64_t limit) {
  if (!def.compute) return false;
  for (ir::ValueId in : n.inputs) {
    if (in == ir::kNone) continue;
    const ir::Value& v = g.value(in);
    if (def.computeFromTypesOnly ? !v.type.fullyKnown() : !v.constant) return false;
  }
  for (ir::ValueId out : n.outputs) {
    if (out == ir::kNone) continue;
    const ir::TensorType& t = g.value(out).type;
    if (!t.fullyKnown() || ir::numElements(t.shape) > limit) return false;
  }
  return true;
}

}  // namespace

PassResult ConstantFolding::run(ir::Graph& g, PassContext& ctx) {
  auto order = g.topologicalOrder();
  if (!order) return false;
  const std::vector<const ir::Tensor*> none;
  size_t folded = 0;
  for (ir::NodeId id : *order) {
    const ir::Node& n = g.node(id);
    const ops::OpDef* def = ctx.registry().find(n.domain, n.opType);
    if (!def || !foldable(g, n, *def, maxOutputElements_)) continue;
    std::vector<ir::Tensor> values = ops::computeOp(*def, ops::makeContext(g, n, none));
    g.removeNode(id);  // a tombstone: `n` stays readable
    for (size_t i = 0; i < n.outputs.size() && i < values.size(); ++i)
      if (n.outputs[i] != ir::kNone) g.value(n.outputs[i]).constant = std::move(values[i]);
    ctx.note("folded " + n.opType + " '" + n.name + "'");
    ++folded;
  }
  return folded > 0;
}

}  // namespace rammer::passes
