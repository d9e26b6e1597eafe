#include "core/passes/instance_norm_lowering.h"

#include <string>

namespace rammer::passes {

namespace {

ir::ValueId addConstant(ir::Graph& g, const std::string& name, ir::Tensor t) {
  const ir::ValueId v = g.addValue(g.uniqueValueName(name), t.type());
  g.value(v).constant = std::move(t);
  return v;
}

// `v` ([C]) seen as [C, 1, ..., 1] of rank `rank` - 1, so that it
// broadcasts over the dims after the channel: a reshaped constant, or a
// Reshape view of anything else.
ir::ValueId perChannel(ir::Graph& g, ir::ValueId v, size_t rank, const std::string& name) {
  ir::Shape shape(rank - 1, 1);
  shape[0] = g.value(v).type.shape[0];
  if (g.value(v).constant) {
    ir::Tensor t = *g.value(v).constant;
    t.reshape(shape);
    return addConstant(g, name, std::move(t));
  }
  const ir::ValueId dims =
      addConstant(g, name + ".shape", ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(shape.size())}, shape));
  const ir::ValueId out = g.addValue(g.uniqueValueName(name), {g.value(v).type.dtype, shape, true});
  ir::Node r;
  r.name = g.value(out).name;
  r.opType = "Reshape";
  r.inputs = {v, dims};
  r.outputs = {out};
  g.addNode(std::move(r));
  return out;
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

    const ir::ValueId one = addConstant(g, n.name + ".unit_scale", ir::Tensor::fromVector<float>({1}, {1.0f}));
    const ir::ValueId normed = g.addValue(g.uniqueValueName(n.name + ".normalized"), xt);
    ir::Node ln;
    ln.name = n.name + ".layer_norm";
    ln.opType = "LayerNormalization";
    ln.inputs = {n.input(0), one};
    ln.outputs = {normed};
    ln.attrs.set("axis", int64_t{2});
    ln.attrs.set("epsilon", n.attrs.getFloat("epsilon", 1e-5f));
    g.addNode(std::move(ln));

    const ir::ValueId scaled = g.addValue(g.uniqueValueName(n.name + ".scaled"), xt);
    ir::Node mul;
    mul.name = n.name + ".scale";
    mul.opType = "Mul";
    mul.inputs = {normed, perChannel(g, n.input(1), rank, n.name + ".scale_c")};
    mul.outputs = {scaled};
    g.addNode(std::move(mul));

    ir::Node add;
    add.name = n.name + ".shift";
    add.opType = "Add";
    add.inputs = {scaled, perChannel(g, n.input(2), rank, n.name + ".bias_c")};
    add.outputs = {y};
    g.addNode(std::move(add));
    ctx.note("InstanceNormalization '" + n.name + "' as a layer norm over its spatial dims and a per-channel affine");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
