#include "core/passes/log_sum_exp_lowering.h"

#include <optional>
#include <string>
#include <vector>

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

ir::ValueId addConstant(ir::Graph& g, const std::string& name, ir::Tensor t) {
  const ir::ValueId v = g.addValue(g.uniqueValueName(name), t.type());
  g.value(v).constant = std::move(t);
  return v;
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

// A reduction `op` of `x` over `axes`, dims kept, in the form the opset wants.
ir::ValueId reduce(ir::Graph& g, const std::string& name, const std::string& op, ir::ValueId x,
                   const std::vector<int64_t>& axes, const ir::TensorType& type) {
  ir::Attributes a;
  a.set("keepdims", int64_t{1});
  std::vector<ir::ValueId> in = {x};
  if (axesAsInput(op, g.opsetVersion))
    in.push_back(
        addConstant(g, name + ".axes", ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(axes.size())}, axes)));
  else
    a.set("axes", axes);
  return addNode(g, name, op, std::move(in), type, std::move(a));
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
    const std::string b = n.name;
    const ir::ValueId m = reduce(g, b + ".max", "ReduceMax", n.input(0), *axes, kept);
    const ir::ValueId shifted = addNode(g, b + ".shift", "Sub", {n.input(0), m}, x);
    const ir::ValueId e = addNode(g, b + ".exp", "Exp", {shifted}, x);
    const ir::ValueId s = reduce(g, b + ".sum", "ReduceSum", e, *axes, kept);
    const ir::ValueId l = addNode(g, b + ".log", "Log", {s}, kept);
    const ir::ValueId dims = addConstant(
        g, b + ".out_shape", ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(y.shape.size())}, y.shape));
    const ir::ValueId lOut = addNode(g, b + ".log_out", "Reshape", {l, dims}, y);
    const ir::ValueId mOut = addNode(g, b + ".max_out", "Reshape", {m, dims}, y);
    addNode(g, b + ".add", "Add", {lOut, mOut}, y, {}, n.output(0));
    ctx.note("ReduceLogSumExp '" + n.name + "' as max, exp, sum and log");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
