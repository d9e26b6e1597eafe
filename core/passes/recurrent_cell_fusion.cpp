#include "core/passes/recurrent_cell_fusion.h"

#include "core/ops/op_registry.h"
#include "core/ops/rnn/cell_ops.h"
#include "core/passes/pattern_match.h"

namespace rammer::passes {

namespace {

// The MatMul (pattern_match.h's producerOf) producing `v` when `cell` is its
// only reader and `v` no graph output, its B a float32 constant [K, n] and
// its A a float32 [rows, K] with rows * blocks small enough; kNone otherwise.
ir::NodeId recurrentMatMul(const ir::Graph& g, ir::ValueId v, ir::NodeId cell, int64_t blocks) {
  const ir::NodeId id = producerOf(g, v, "MatMul");
  if (id == ir::kNone || !readOnlyBy(g, v, {cell})) return ir::kNone;
  const ir::Node& mm = g.node(id);
  if (mm.inputs.size() != 2 || mm.outputs.size() != 1) return ir::kNone;
  const ir::TensorType& a = g.value(mm.input(0)).type;
  const ir::Tensor* w = ir::floatConstant(g, mm.input(1));
  if (!w || w->shape().size() != 2 || a.dtype != ir::DType::Float32 || !a.fullyKnown() || a.shape.size() != 2 ||
      a.shape[1] != w->shape()[0] || a.shape[0] < 1 || a.shape[0] * blocks > ops::kMaxCellGateOutputs)
    return ir::kNone;
  return id;
}

}  // namespace

PassResult RecurrentCellFusion::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& n = g.node(id);
    if (n.removed || n.domain != ops::kRammerDomain) continue;
    const ops::CellRecurrence* rec = ops::cellRecurrence(n.opType);
    if (!rec || n.input(rec->weightSlot) != ir::kNone) continue;
    const ir::NodeId mmId = recurrentMatMul(g, n.input(rec->hr), id, rec->blocks);
    if (mmId == ir::kNone) continue;
    const ir::Node mm = g.node(mmId);
    ir::Node cell = n;
    cell.inputs.resize(std::max(cell.inputs.size(), rec->weightSlot + 1), ir::kNone);
    cell.inputs[rec->hr] = ir::kNone;
    cell.inputs[rec->hSlot] = mm.input(0);
    cell.inputs[rec->weightSlot] = mm.input(1);
    // The note before the node is added: adding one can move the nodes `n` refers to.
    ctx.note("moved MatMul '" + mm.name + "' into the gates of " + n.opType + " '" + n.name + "'");
    g.removeNode(id);
    g.removeNode(mmId);
    g.addNode(std::move(cell));
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
