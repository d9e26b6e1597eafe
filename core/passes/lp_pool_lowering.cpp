#include "core/passes/lp_pool_lowering.h"

#include <optional>
#include <string>
#include <vector>

#include "core/passes/node_writer.h"

namespace rammer::passes {

namespace {

// LpPool's p: an int since opset 2, a float in opset 1; nullopt if not positive.
std::optional<float> exponentOf(const ir::Node& n) {
  float p = 2.0f;
  if (const ir::AttrValue* v = n.attrs.find("p")) {
    if (const auto* i = std::get_if<int64_t>(v)) p = static_cast<float>(*i);
    else if (const auto* f = std::get_if<float>(v)) p = *f;
    else return std::nullopt;
  }
  return p > 0 ? std::optional<float>(p) : std::nullopt;
}

bool onlyOnes(const std::vector<int64_t>& v) {
  for (int64_t d : v)
    if (d != 1) return false;
  return true;
}

}  // namespace

PassResult LpPoolLowering::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& probe = g.node(id);
    const bool global = probe.opType == "GlobalLpPool";
    if (probe.removed || !probe.domain.empty() || (probe.opType != "LpPool" && !global) ||
        probe.output(0) == ir::kNone)
      continue;
    const ir::TensorType x = g.value(probe.input(0)).type, y = g.value(probe.output(0)).type;
    const auto p = exponentOf(probe);
    if (!x.fullyKnown() || !y.fullyKnown() || x.dtype != ir::DType::Float32 || x.shape.size() < 3 || !p) continue;
    if (!global && (probe.attrs.getInt("ceil_mode", 0) != 0 || !onlyOnes(probe.attrs.getInts("dilations"))))
      continue;
    int64_t window = 1;  // K: the positions of one window
    if (global) {
      for (size_t d = 2; d < x.shape.size(); ++d) window *= x.shape[d];
    } else {
      for (int64_t k : probe.attrs.getInts("kernel_shape")) window *= k;
    }
    if (window < 1) continue;
    const ir::Node n = g.node(id);  // a copy: the nodes added below move the others
    g.removeNode(id);

    NodeWriter w(g, n.name);
    const ir::ValueId magnitude = w.node(".abs", "Abs", {n.input(0)}, x);
    const ir::ValueId powered = w.node(".pow", "Pow", {magnitude, w.scalar(".p", *p)}, x);
    ir::Attributes pool;
    if (!global) {
      pool = n.attrs;
      pool.erase("p");
      pool.erase("dilations");
      pool.set("count_include_pad", int64_t{1});
    }
    const ir::ValueId mean =
        w.node(".mean", global ? "GlobalAveragePool" : "AveragePool", {powered}, y, std::move(pool));
    const ir::ValueId sum = w.node(".sum", "Mul", {mean, w.scalar(".k", static_cast<float>(window))}, y);
    w.node(".root", "Pow", {sum, w.scalar(".inv_p", 1.0f / *p)}, y, {}, n.output(0));
    ctx.note(std::string(global ? "GlobalLpPool '" : "LpPool '") + n.name + "' as an average pool of |x|^p");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
