#include "core/passes/log_sum_exp_lowering.h"

#include <optional>
#include <string>
#include <vector>

#include "core/passes/node_writer.h"

namespace rammer::passes {

namespace {

// ReduceSum took its axes as input 1 from opset 13, the other reductions
// from opset 18.
bool axesAsInput(const std::string& op, int64_t opset) { return opset >= (op == "ReduceSum" ? 13 : 18); }

// The node's axes, normalized; every axis when none are given (unless the
// node is then the identity); nullopt when they are not known.
std::optional<std::vector<int64_t>> axesOf(const ir::Graph& g, const ir::Node& n, int64_t rank) {
  std::vector<int64_t> axes;
  if (axesAsInput(n.opType, g.opsetVersion)) {
    if (n.input(1) != ir::kNone) {
      const auto& c = g.value(n.input(1)).constant;
      if (!c) return std::nullopt;
      axes = c->toInt64s();
    }
  } else {
    axes = n.attrs.getInts("axes");
  }
  if (axes.empty()) {
    if (n.attrs.getInt("noop_with_empty_axes", 0) != 0) return std::nullopt;
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    if (a < 0) a += rank;
  }
  return axes;
}

// A reduction `op` of `x` over `axes`, dims kept, in the form the opset wants.
ir::ValueId reduce(NodeWriter& w, int64_t opset, const std::string& suffix, const std::string& op, ir::ValueId x,
                   const std::vector<int64_t>& axes, const ir::TensorType& type) {
  ir::Attributes a;
  a.set("keepdims", int64_t{1});
  std::vector<ir::ValueId> in = {x};
  if (axesAsInput(op, opset)) in.push_back(w.ints(suffix + ".axes", axes));
  else a.set("axes", axes);
  return w.node(suffix, op, std::move(in), type, std::move(a));
}

}  // namespace

PassResult LogSumExpLowering::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& probe = g.node(id);
    if (probe.removed || !probe.domain.empty() || probe.opType != "ReduceLogSumExp" || probe.output(0) == ir::kNone)
      continue;
    const ir::TensorType x = g.value(probe.input(0)).type, y = g.value(probe.output(0)).type;
    if (!x.fullyKnown() || !y.fullyKnown() || x.dtype != ir::DType::Float32) continue;
    const auto axes = axesOf(g, probe, static_cast<int64_t>(x.shape.size()));
    if (!axes) continue;
    const ir::Node n = g.node(id);  // a copy: the nodes added below move the others
    g.removeNode(id);

    ir::TensorType kept = x;
    for (int64_t a : *axes) kept.shape[static_cast<size_t>(a)] = 1;
    NodeWriter w(g, n.name);
    const ir::ValueId m = reduce(w, g.opsetVersion, ".max", "ReduceMax", n.input(0), *axes, kept);
    const ir::ValueId shifted = w.node(".shift", "Sub", {n.input(0), m}, x);
    const ir::ValueId e = w.node(".exp", "Exp", {shifted}, x);
    const ir::ValueId s = reduce(w, g.opsetVersion, ".sum", "ReduceSum", e, *axes, kept);
    const ir::ValueId l = w.node(".log", "Log", {s}, kept);
    // Both in the output's shape (views): keepdims 0 drops the reduced dims.
    w.node(".add", "Add", {w.reshape(".log_out", l, y.shape), w.reshape(".max_out", m, y.shape)}, y, {}, n.output(0));
    ctx.note("ReduceLogSumExp '" + n.name + "' as max, exp, sum and log");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
