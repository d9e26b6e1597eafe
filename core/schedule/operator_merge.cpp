#include "core/schedule/operator_merge.h"

#include <cstring>
#include <map>

namespace rammer::schedule {

namespace {

// Where the operator's width lies: the weight axis that concatenates and
// the output axis the Split cuts.
struct Layout {
  int64_t weightAxis = 0;
  int64_t outAxis = 1;
  int64_t width = 0;  // this operator's size along both
};

std::optional<Layout> layoutOf(const ir::Graph& g, const ir::Node& n) {
  const ir::Tensor* w = ir::floatConstant(g, n.input(1));
  if (!w) return std::nullopt;
  if (n.opType == "Conv") {
    if (w->rank() < 3) return std::nullopt;
    return Layout{0, 1, w->shape()[0]};
  }
  if (w->rank() != 2) return std::nullopt;
  if (n.opType == "Gemm") {
    const bool transB = n.attrs.getInt("transB", 0) != 0;
    return Layout{transB ? 0 : 1, 1, transB ? w->shape()[0] : w->shape()[1]};
  }
  const ir::TensorType& out = g.value(n.output(0)).type;  // MatMul: the last axis
  return Layout{1, static_cast<int64_t>(out.shape.size()) - 1, w->shape()[1]};
}

std::string attrsText(const ir::Node& n) {
  std::string s;
  for (const auto& [name, value] : n.attrs.all()) s += name + "=" + ir::attrToString(value) + ";";
  return s;
}

std::string quoted(const ir::Node& n) { return "'" + n.name + "'"; }

// The tensors side by side along `axis` (equal shapes elsewhere).
ir::Tensor concatAlong(const std::vector<const ir::Tensor*>& parts, int64_t axis) {
  ir::Shape shape = parts.front()->shape();
  shape[static_cast<size_t>(axis)] = 0;
  for (const ir::Tensor* t : parts) shape[static_cast<size_t>(axis)] += t->shape()[static_cast<size_t>(axis)];
  ir::Tensor out(ir::DType::Float32, shape);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  float* dst = out.data<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (const ir::Tensor* t : parts) {
      const int64_t run = t->shape()[static_cast<size_t>(axis)] * inner;
      std::memcpy(dst, t->data<float>() + o * run, static_cast<size_t>(run) * sizeof(float));
      dst += run;
    }
  return out;
}

ir::ValueId addConstant(ir::Graph& g, const std::string& base, ir::Tensor t) {
  const ir::ValueId v = g.addValue(g.uniqueValueName(base), t.type());
  g.value(v).constant = std::move(t);
  return v;
}

}  // namespace

std::optional<std::string> mergeObstacle(const ir::Graph& g, const std::vector<ir::NodeId>& nodes) {
  if (nodes.size() < 2) return "a merge needs at least two operators";
  for (ir::NodeId id : nodes)
    if (id < 0 || static_cast<size_t>(id) >= g.numNodeSlots() || g.node(id).removed)
      return "node #" + std::to_string(id) + " is not in the graph";
  for (size_t i = 0; i < nodes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (nodes[i] == nodes[j]) return quoted(g.node(nodes[i])) + " is named twice";
  const ir::Node& first = g.node(nodes.front());
  if (first.opType != "Conv" && first.opType != "Gemm" && first.opType != "MatMul")
    return quoted(first) + " is a " + first.opType + "; only Conv, Gemm and MatMul merge";
  for (ir::NodeId id : nodes) {
    const ir::Node& n = g.node(id);
    if (n.opType != first.opType || n.domain != first.domain)
      return quoted(first) + " is a " + first.opType + " and " + quoted(n) + " a " + n.opType;
    if (n.input(0) == ir::kNone || n.input(0) != first.input(0))
      return quoted(first) + " and " + quoted(n) + " read different inputs";
    if (attrsText(n) != attrsText(first)) return quoted(first) + " and " + quoted(n) + " have different attributes";
    if (n.outputs.size() != 1 || n.output(0) == ir::kNone) return quoted(n) + " must have exactly one output";
    if (n.opType == "Conv" && n.attrs.getInt("group", 1) != 1) return quoted(n) + " is a grouped convolution";
    const auto layout = layoutOf(g, n);
    if (!layout) return quoted(n) + "'s weights are not a constant float tensor of the usual rank";
    const ir::TensorType& out = g.value(n.output(0)).type;
    if (!out.rankKnown || layout->outAxis < 0 || static_cast<size_t>(layout->outAxis) >= out.shape.size() ||
        out.shape[static_cast<size_t>(layout->outAxis)] != layout->width)
      return quoted(n) + "'s output shape is not known";
    const ir::Tensor& w = *ir::floatConstant(g, n.input(1));
    const ir::Tensor& w0 = *ir::floatConstant(g, first.input(1));
    for (size_t d = 0; d < w.shape().size(); ++d)
      if (static_cast<int64_t>(d) != layout->weightAxis && w.shape()[d] != w0.shape()[d])
        return quoted(first) + " and " + quoted(n) + " have weights of different shapes";
    const ir::TensorType& out0 = g.value(first.output(0)).type;
    for (size_t d = 0; d < out.shape.size(); ++d)
      if (static_cast<int64_t>(d) != layout->outAxis && (out0.shape.size() != out.shape.size() || out.shape[d] != out0.shape[d]))
        return quoted(first) + " and " + quoted(n) + " have outputs of different shapes";
    if (n.opType == "MatMul" && n.inputs.size() > 2) return quoted(n) + " has extra inputs";
    if (n.input(2) != ir::kNone) {
      const ir::Tensor* bias = ir::floatConstant(g, n.input(2));
      if (!bias || (bias->numel() != layout->width && !(n.opType == "Gemm" && bias->numel() == 1)) ||
          (n.opType == "Gemm" && bias->rank() == 2 && bias->shape()[0] != 1))
        return quoted(n) + "'s bias is not a constant per output " + (n.opType == "Conv" ? "channel" : "column");
    }
    if (n.inputs.size() > 3) return quoted(n) + " has extra inputs";
  }
  return std::nullopt;
}

ir::Result<MergedOperator> mergeOperators(ir::Graph& g, const std::vector<ir::NodeId>& nodes) {
  if (auto obstacle = mergeObstacle(g, nodes)) return ir::makeError("cannot merge: " + *obstacle);
  const ir::Node first = g.node(nodes.front());
  std::vector<const ir::Tensor*> weights;
  std::vector<Layout> layouts;
  std::vector<ir::ValueId> outputs;
  std::string name;
  bool anyBias = false;
  int64_t width = 0;
  for (ir::NodeId id : nodes) {
    const ir::Node& n = g.node(id);
    weights.push_back(ir::floatConstant(g, n.input(1)));
    layouts.push_back(*layoutOf(g, n));
    outputs.push_back(n.output(0));
    name += (name.empty() ? "" : "+") + n.name;
    anyBias = anyBias || n.input(2) != ir::kNone;
    width += layouts.back().width;
  }
  const Layout& layout = layouts.front();
  ir::Tensor weight = concatAlong(weights, layout.weightAxis);
  std::optional<ir::Tensor> bias;
  if (anyBias) {  // absent biases are zeros; a Gemm's scalar bias is spread over its columns
    bias = ir::Tensor(ir::DType::Float32, {width});
    float* dst = bias->data<float>();
    for (size_t i = 0; i < nodes.size(); ++i) {
      const ir::Tensor* b = ir::floatConstant(g, g.node(nodes[i]).input(2));
      for (int64_t c = 0; c < layouts[i].width; ++c) dst[c] = !b ? 0.0f : b->numel() == 1 ? b->data<float>()[0] : b->data<float>()[c];
      dst += layouts[i].width;
    }
  }
  ir::TensorType outType = g.value(first.output(0)).type;
  outType.shape[static_cast<size_t>(layout.outAxis)] = width;
  std::vector<int64_t> sizes;
  for (const Layout& l : layouts) sizes.push_back(l.width);

  const ir::ValueId weightValue = addConstant(g, name + ".weight", std::move(weight));
  const ir::ValueId biasValue = bias ? addConstant(g, name + ".bias", std::move(*bias)) : ir::kNone;
  const ir::ValueId sizesValue = addConstant(g, name + ".split_sizes", ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(sizes.size())}, sizes));
  const ir::ValueId wide = g.addValue(g.uniqueValueName(name + ".out"), outType);
  for (ir::NodeId id : nodes) g.removeNode(id);

  ir::Node merged;
  merged.name = name;
  merged.opType = first.opType;
  merged.domain = first.domain;
  merged.inputs = {first.input(0), weightValue};
  if (biasValue != ir::kNone) merged.inputs.push_back(biasValue);
  merged.outputs = {wide};
  merged.attrs = first.attrs;
  ir::Node split;
  split.name = name + ".split";
  split.opType = "Split";
  split.inputs = {wide, sizesValue};
  split.outputs = outputs;
  split.attrs.set("axis", layout.outAxis);
  MergedOperator out;
  out.merged = g.addNode(std::move(merged));
  out.split = g.addNode(std::move(split));
  return out;
}

ir::Result<MergeSketch> sketchMerge(const ir::Graph& g, const std::vector<ir::NodeId>& nodes) {
  if (auto obstacle = mergeObstacle(g, nodes)) return ir::makeError("cannot merge: " + *obstacle);
  MergeSketch s;
  s.graph.name = g.name + " (merge sketch)";
  s.graph.opsetVersion = g.opsetVersion;
  std::map<ir::ValueId, ir::ValueId> copied;
  auto copy = [&](ir::ValueId v) {
    if (v == ir::kNone) return v;
    if (auto it = copied.find(v); it != copied.end()) return it->second;
    const ir::Value& from = g.value(v);
    const ir::ValueId to = s.graph.addValue(from.name, from.type);
    s.graph.value(to).constant = from.constant;
    copied.emplace(v, to);
    return to;
  };
  s.graph.addInput(copy(g.node(nodes.front()).input(0)));
  std::vector<ir::NodeId> inSketch;
  for (ir::NodeId id : nodes) {
    ir::Node n = g.node(id);
    for (ir::ValueId& v : n.inputs) v = copy(v);
    for (ir::ValueId& v : n.outputs) v = copy(v);
    for (ir::ValueId v : n.outputs) s.graph.addOutput(v);
    inSketch.push_back(s.graph.addNode(std::move(n)));
  }
  auto merged = mergeOperators(s.graph, inSketch);
  if (!merged) return merged.errors();
  s.ops = *merged;
  return s;
}

}  // namespace rammer::schedule
