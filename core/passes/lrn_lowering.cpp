#include "core/passes/lrn_lowering.h"

#include <string>
#include <vector>

#include "core/passes/node_writer.h"

namespace rammer::passes {

PassResult LrnLowering::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& probe = g.node(id);
    if (probe.removed || !probe.domain.empty() || probe.opType != "LRN" || probe.output(0) == ir::kNone) continue;
    const ir::TensorType x = g.value(probe.input(0)).type;
    const int64_t size = probe.attrs.getInt("size", 0);
    if (!x.fullyKnown() || x.dtype != ir::DType::Float32 || x.shape.size() < 3 || size < 1) continue;
    const ir::Node n = g.node(id);  // a copy: the nodes added below move the others
    g.removeNode(id);

    const int64_t N = x.shape[0], C = x.shape[1];
    int64_t rest = 1;
    for (size_t d = 2; d < x.shape.size(); ++d) rest *= x.shape[d];
    const int64_t before = (size - 1) / 2, after = size - 1 - before;  // ONNX's channel window
    NodeWriter w(g, n.name);
    const ir::TensorType planes{ir::DType::Float32, {N, 1, C, rest}, true};
    const ir::ValueId squared = w.node(".square", "Mul", {n.input(0), n.input(0)}, x);
    ir::Attributes pool;
    pool.set("kernel_shape", std::vector<int64_t>{size, 1});
    pool.set("pads", std::vector<int64_t>{before, 0, after, 0});
    pool.set("count_include_pad", int64_t{1});
    const ir::ValueId planar = w.reshape(".planes", squared, planes.shape);
    const ir::ValueId mean = w.node(".window", "AveragePool", {planar}, planes, std::move(pool));
    const ir::ValueId meanSquares = w.reshape(".mean_squares", mean, x.shape);
    // bias + alpha / size * (size * mean) = bias + alpha * mean
    const float alpha = n.attrs.getFloat("alpha", 1e-4f), beta = n.attrs.getFloat("beta", 0.75f);
    const float bias = n.attrs.getFloat("bias", 1.0f);
    const ir::ValueId scaled = w.node(".scale", "Mul", {meanSquares, w.scalar(".alpha", alpha)}, x);
    const ir::ValueId base = w.node(".base", "Add", {scaled, w.scalar(".bias", bias)}, x);
    const ir::ValueId denom = w.node(".denominator", "Pow", {base, w.scalar(".beta", beta)}, x);
    w.node(".divide", "Div", {n.input(0), denom}, x, {}, n.output(0));
    ctx.note("LRN '" + n.name + "' as an average pool over the channels of x^2");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
