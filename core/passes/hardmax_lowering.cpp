#include "core/passes/hardmax_lowering.h"

#include <string>
#include <vector>

namespace rammer::passes {

namespace {

ir::ValueId constant(ir::Graph& g, const std::string& name, ir::Tensor t) {
  const ir::ValueId c = g.addValue(g.uniqueValueName(name), t.type());
  g.value(c).constant = std::move(t);
  return c;
}

ir::ValueId scalar(ir::Graph& g, const std::string& name, float v) {
  return constant(g, name, ir::Tensor::fromVector<float>({}, {v}));
}

ir::ValueId addNode(ir::Graph& g, const std::string& name, const std::string& op, std::vector<ir::ValueId> inputs,
                    const ir::TensorType& type, ir::Attributes attrs = {}, ir::ValueId out = ir::kNone) {
  if (out == ir::kNone) out = g.addValue(g.uniqueValueName(name), type);
  ir::Node n;
  n.name = name;
  n.opType = op;
  n.inputs = std::move(inputs);
  n.outputs = {out};
  n.attrs = std::move(attrs);
  g.addNode(std::move(n));
  return out;
}

ir::ValueId reshape(ir::Graph& g, const std::string& name, ir::ValueId v, const ir::Shape& shape) {
  const ir::ValueId dims =
      constant(g, name + ".shape", ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(shape.size())}, shape));
  return addNode(g, name, "Reshape", {v, dims}, {ir::DType::Float32, shape, true});
}

}  // namespace

PassResult HardmaxLowering::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& probe = g.node(id);
    if (probe.removed || !probe.domain.empty() || probe.opType != "Hardmax" || probe.output(0) == ir::kNone) continue;
    const ir::TensorType x = g.value(probe.input(0)).type;
    if (!x.fullyKnown() || x.dtype != ir::DType::Float32 || x.shape.empty()) continue;
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const bool coerced = g.opsetVersion < 13;  // 2-D at the axis, as opset 1-11 do
    int64_t axis = probe.attrs.getInt("axis", coerced ? 1 : -1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) continue;
    const ir::Node n = g.node(id);  // a copy: the nodes added below move the others
    g.removeNode(id);

    const std::string b = n.name;
    ir::ValueId v = n.input(0);
    ir::TensorType t = x;
    if (coerced) {
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= x.shape[static_cast<size_t>(d)];
      t.shape = {outer, inner};
      v = reshape(g, b + ".rows", v, t.shape);
      axis = 1;
    }
    ir::TensorType kept = t;
    kept.shape[static_cast<size_t>(axis)] = 1;
    ir::Attributes maxAttrs;
    maxAttrs.set("keepdims", int64_t{1});
    std::vector<ir::ValueId> maxInputs = {v};
    if (g.opsetVersion >= 18)
      maxInputs.push_back(constant(g, b + ".axes", ir::Tensor::fromVector<int64_t>({1}, {axis})));
    else
      maxAttrs.set("axes", std::vector<int64_t>{axis});
    const ir::ValueId m = addNode(g, b + ".max", "ReduceMax", std::move(maxInputs), kept, std::move(maxAttrs));
    const ir::ValueId gap = addNode(g, b + ".gap", "Sub", {m, v}, t);
    const ir::ValueId isMax =
        addNode(g, b + ".is_max", "Sub", {scalar(g, b + ".one", 1.0f), addNode(g, b + ".sign", "Sign", {gap}, t)}, t);
    ir::Attributes scan;
    scan.set("exclusive", int64_t{1});
    const ir::ValueId before = addNode(
        g, b + ".before", "CumSum", {isMax, constant(g, b + ".axis", ir::Tensor::fromVector<int64_t>({}, {axis}))}, t,
        std::move(scan));
    const ir::ValueId seen = addNode(g, b + ".seen", "Min", {before, scalar(g, b + ".cap", 1.0f)}, t);
    const ir::ValueId first = addNode(g, b + ".unseen", "Sub", {scalar(g, b + ".one2", 1.0f), seen}, t);
    if (coerced) {
      const ir::ValueId flat = addNode(g, b + ".first", "Mul", {isMax, first}, t);
      const ir::ValueId dims =
          constant(g, b + ".out_shape", ir::Tensor::fromVector<int64_t>({rank}, x.shape));
      addNode(g, b + ".out", "Reshape", {flat, dims}, x, {}, n.output(0));
    } else {
      addNode(g, b + ".first", "Mul", {isMax, first}, x, {}, n.output(0));
    }
    ctx.note("Hardmax '" + n.name + "' as max, sign and an exclusive count of the maxima");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
