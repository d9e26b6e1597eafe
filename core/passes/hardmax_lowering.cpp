#include "core/passes/hardmax_lowering.h"

#include <string>
#include <vector>

#include "core/passes/node_writer.h"

namespace rammer::passes {

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

    NodeWriter w(g, n.name);
    ir::ValueId v = n.input(0);
    ir::TensorType t = x;
    if (coerced) {
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= x.shape[static_cast<size_t>(d)];
      t.shape = {outer, inner};
      v = w.reshape(".rows", v, t.shape);
      axis = 1;
    }
    ir::TensorType kept = t;
    kept.shape[static_cast<size_t>(axis)] = 1;
    ir::Attributes maxAttrs;
    maxAttrs.set("keepdims", int64_t{1});
    std::vector<ir::ValueId> maxInputs = {v};
    if (g.opsetVersion >= 18)
      maxInputs.push_back(w.ints(".axes", {axis}));
    else
      maxAttrs.set("axes", std::vector<int64_t>{axis});
    const ir::ValueId m = w.node(".max", "ReduceMax", std::move(maxInputs), kept, std::move(maxAttrs));
    const ir::ValueId gap = w.node(".gap", "Sub", {m, v}, t);
    const ir::ValueId isMax = w.node(".is_max", "Sub", {w.scalar(".one", 1.0f), w.node(".sign", "Sign", {gap}, t)}, t);
    ir::Attributes scan;
    scan.set("exclusive", int64_t{1});
    const ir::ValueId before =
        w.node(".before", "CumSum", {isMax, w.constant(".axis", ir::Tensor::fromVector<int64_t>({}, {axis}))}, t,
               std::move(scan));
    const ir::ValueId seen = w.node(".seen", "Min", {before, w.scalar(".cap", 1.0f)}, t);
    const ir::ValueId first = w.node(".unseen", "Sub", {w.scalar(".one", 1.0f), seen}, t);
    if (coerced) {
      w.reshape(".out", w.node(".first", "Mul", {isMax, first}, t), x.shape, n.output(0));
    } else {
      w.node(".first", "Mul", {isMax, first}, x, {}, n.output(0));
    }
    ctx.note("Hardmax '" + n.name + "' as max, sign and an exclusive count of the maxima");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
