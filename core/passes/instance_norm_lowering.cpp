#include "core/passes/instance_norm_lowering.h"

#include <string>

#include "core/passes/node_writer.h"

namespace rammer::passes {

namespace {

// `v` ([C]) seen as [C, 1, ..., 1] of rank `rank` - 1, so that it
// broadcasts over the dims after the channel: a reshaped constant, or a
// Reshape view of anything else.
ir::ValueId perChannel(ir::Graph& g, NodeWriter& w, ir::ValueId v, size_t rank, const std::string& suffix) {
  ir::Shape shape(rank - 1, 1);
  shape[0] = g.value(v).type.shape[0];
  if (g.value(v).constant) {
    ir::Tensor t = *g.value(v).constant;
    t.reshape(shape);
    return w.constant(suffix, std::move(t));
  }
  return w.reshape(suffix, v, shape);
}

bool lowerable(const ir::Graph& g, const ir::Node& n) {
  if (!n.domain.empty() || n.opType != "InstanceNormalization" || n.inputs.size() != 3) return false;
  for (ir::ValueId v : n.inputs)
    if (v == ir::kNone || g.value(v).type.dtype != ir::DType::Float32) return false;
  const ir::TensorType &x = g.value(n.input(0)).type, &s = g.value(n.input(1)).type, &b = g.value(n.input(2)).type;
  return x.rankKnown && x.shape.size() >= 3 && x.shape[1] >= 0 && s.rankKnown && s.shape == ir::Shape{x.shape[1]} &&
         b.rankKnown && b.shape == ir::Shape{x.shape[1]} && n.output(0) != ir::kNone;
}

}  // namespace

PassResult InstanceNormLowering::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    if (g.node(id).removed || !lowerable(g, g.node(id))) continue;
    const ir::Node n = g.node(id);  // a copy: the nodes added below move the others
    const ir::TensorType xt = g.value(n.input(0)).type;
    const size_t rank = xt.shape.size();
    const ir::ValueId y = n.output(0);
    g.removeNode(id);

    NodeWriter w(g, n.name);
    ir::Attributes ln;
    ln.set("axis", int64_t{2});
    ln.set("epsilon", n.attrs.getFloat("epsilon", 1e-5f));
    const ir::ValueId normed =
        w.node(".layer_norm", "LayerNormalization", {n.input(0), w.scalar(".unit_scale", 1.0f)}, xt, std::move(ln));
    const ir::ValueId scaled = w.node(".scale", "Mul", {normed, perChannel(g, w, n.input(1), rank, ".scale_c")}, xt);
    w.node(".shift", "Add", {scaled, perChannel(g, w, n.input(2), rank, ".bias_c")}, xt, {}, y);
    ctx.note("InstanceNormalization '" + n.name + "' as a layer norm over its spatial dims and a per-channel affine");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
