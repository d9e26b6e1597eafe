#include "core/passes/lrn_lowering.h"

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
    const std::string b = n.name;
    const ir::TensorType planes{ir::DType::Float32, {N, 1, C, rest}, true};
    const ir::ValueId squared = addNode(g, b + ".square", "Mul", {n.input(0), n.input(0)}, x);
    ir::Attributes pool;
    pool.set("kernel_shape", std::vector<int64_t>{size, 1});
    pool.set("pads", std::vector<int64_t>{before, 0, after, 0});
    pool.set("count_include_pad", int64_t{1});
    const ir::ValueId mean =
        addNode(g, b + ".window", "AveragePool", {reshape(g, b + ".planes", squared, planes.shape)}, planes, pool);
    const ir::ValueId meanSquares = reshape(g, b + ".mean_squares", mean, x.shape);
    // bias + alpha / size * (size * mean) = bias + alpha * mean
    const float alpha = n.attrs.getFloat("alpha", 1e-4f), beta = n.attrs.getFloat("beta", 0.75f);
    const float bias = n.attrs.getFloat("bias", 1.0f);
    const ir::ValueId scaled = addNode(g, b + ".scale", "Mul", {meanSquares, scalar(g, b + ".alpha", alpha)}, x);
    const ir::ValueId base = addNode(g, b + ".base", "Add", {scaled, scalar(g, b + ".bias", bias)}, x);
    const ir::ValueId denom = addNode(g, b + ".denominator", "Pow", {base, scalar(g, b + ".beta", beta)}, x);
    addNode(g, b + ".divide", "Div", {n.input(0), denom}, x, {}, n.output(0));
    ctx.note("LRN '" + n.name + "' as an average pool over the channels of x^2");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
