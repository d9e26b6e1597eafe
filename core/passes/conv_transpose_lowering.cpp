#include "core/passes/conv_transpose_lowering.h"

#include <optional>
#include <string>
#include <vector>

#include "core/passes/node_writer.h"

namespace rammer::passes {

namespace {

struct Geometry {
  size_t spatial = 0;
  int64_t group = 1;
  std::vector<int64_t> kernel, strides, dilations, padBegin, padEnd;  // padEnd includes output_padding
};

std::vector<int64_t> ints(const ir::Node& n, const char* name, size_t count, int64_t def) {
  std::vector<int64_t> v = n.attrs.getInts(name, std::vector<int64_t>(count, def));
  return v.size() == count ? v : std::vector<int64_t>{};
}

// The Conv's geometry, or nothing for a form this pass leaves alone.
std::optional<Geometry> geometryOf(const ir::Graph& g, const ir::Node& n) {
  if (!n.domain.empty() || n.opType != "ConvTranspose" || n.inputs.size() < 2 || n.output(0) == ir::kNone)
    return std::nullopt;
  if (n.attrs.getString("auto_pad", "NOTSET") != "NOTSET" || n.attrs.has("output_shape")) return std::nullopt;
  const ir::Value &x = g.value(n.input(0)), &w = g.value(n.input(1));
  if (!x.type.fullyKnown() || x.type.dtype != ir::DType::Float32 || !w.constant ||
      w.constant->dtype() != ir::DType::Float32 || x.type.shape.size() < 3 ||
      w.type.shape.size() != x.type.shape.size())
    return std::nullopt;
  if (n.input(2) != ir::kNone && g.value(n.input(2)).type.dtype != ir::DType::Float32) return std::nullopt;
  Geometry geo;
  geo.spatial = x.type.shape.size() - 2;
  geo.group = n.attrs.getInt("group", 1);
  geo.kernel.assign(w.type.shape.begin() + 2, w.type.shape.end());
  if (n.attrs.has("kernel_shape") && n.attrs.getInts("kernel_shape") != geo.kernel) return std::nullopt;
  geo.strides = ints(n, "strides", geo.spatial, 1);
  geo.dilations = ints(n, "dilations", geo.spatial, 1);
  const std::vector<int64_t> pads = ints(n, "pads", 2 * geo.spatial, 0);
  const std::vector<int64_t> outPad = ints(n, "output_padding", geo.spatial, 0);
  if (geo.strides.empty() || geo.dilations.empty() || pads.empty() || outPad.empty() || geo.group < 1 ||
      x.type.shape[1] % geo.group != 0 || w.type.shape[0] != x.type.shape[1])
    return std::nullopt;
  for (size_t i = 0; i < geo.spatial; ++i) {
    const int64_t reach = geo.dilations[i] * (geo.kernel[i] - 1);
    const int64_t begin = reach - pads[i], end = reach - pads[geo.spatial + i] + outPad[i];
    if (begin < 0 || end < 0 || geo.strides[i] < 1) return std::nullopt;  // a crop: left to the reference
    geo.padBegin.push_back(begin);
    geo.padEnd.push_back(end);
  }
  return geo;
}

// x with s - 1 zeros after every element along each spatial dim (the last
// s - 1 zeros dropped by the Conv's padding, which is why padEnd shrinks).
ir::ValueId dilateInput(ir::Graph& g, NodeWriter& w, ir::ValueId x, Geometry& geo) {
  const ir::Shape in = g.value(x).type.shape;
  ir::Shape split{in[0], in[1]}, padded{in[0], in[1]}, out{in[0], in[1]};
  std::vector<int64_t> pads(2 * (2 + 2 * geo.spatial), 0);
  const size_t rank = 2 + 2 * geo.spatial;
  for (size_t i = 0; i < geo.spatial; ++i) {
    const int64_t s = geo.strides[i], d = in[2 + i];
    split.insert(split.end(), {d, 1});
    padded.insert(padded.end(), {d, s});
    pads[rank + 2 + 2 * i + 1] = s - 1;  // end of the new unit dim
    out.push_back(d * s);
  }
  const ir::ValueId spread = w.reshape(".spread", x, split);
  // Pad reads its pads from an attribute before opset 11, from an input since.
  ir::Attributes padAttrs;
  std::vector<ir::ValueId> padInputs = {spread};
  if (g.opsetVersion < 11) padAttrs.set("pads", pads);
  else padInputs.push_back(w.ints(".pads", pads));
  const ir::ValueId zeros =
      w.node(".zeros", "Pad", std::move(padInputs), {ir::DType::Float32, padded, true}, std::move(padAttrs));
  const ir::ValueId dilated = w.reshape(".dilated", zeros, out);
  for (size_t i = 0; i < geo.spatial; ++i) geo.padEnd[i] -= geo.strides[i] - 1;
  return dilated;
}

// W [C, M/G, k...] -> [M, C/G, k...], per group, flipped in every spatial dim.
ir::Tensor convWeights(const ir::Tensor& w, int64_t group) {
  const ir::Shape& s = w.shape();
  const int64_t C = s[0], Mg = s[1], Cg = C / group;
  int64_t K = 1;
  for (size_t i = 2; i < s.size(); ++i) K *= s[i];
  ir::Shape out = s;
  out[0] = Mg * group;
  out[1] = Cg;
  ir::Tensor t(ir::DType::Float32, out);
  const float* src = w.data<float>();
  float* dst = t.data<float>();
  for (int64_t gi = 0; gi < group; ++gi)
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t m = 0; m < Mg; ++m)
        for (int64_t k = 0; k < K; ++k)  // a flat index over the spatial dims; flipped is K - 1 - k
          dst[((gi * Mg + m) * Cg + c) * K + k] = src[((gi * Cg + c) * Mg + m) * K + (K - 1 - k)];
  return t;
}

}  // namespace

PassResult ConvTransposeLowering::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    if (g.node(id).removed) continue;
    std::optional<Geometry> geo = geometryOf(g, g.node(id));
    if (!geo) continue;
    const ir::Node n = g.node(id);  // a copy: the nodes added below move the others
    g.removeNode(id);
    NodeWriter w(g, n.name);
    ir::ValueId x = n.input(0);
    bool strided = false;
    for (int64_t s : geo->strides) strided = strided || s > 1;
    if (strided) x = dilateInput(g, w, x, *geo);
    std::vector<ir::ValueId> inputs = {
        x, w.constant(".conv_weight", convWeights(*g.value(n.input(1)).constant, geo->group))};
    if (n.input(2) != ir::kNone) inputs.push_back(n.input(2));
    std::vector<int64_t> pads = geo->padBegin;
    pads.insert(pads.end(), geo->padEnd.begin(), geo->padEnd.end());
    ir::Attributes a;
    a.set("kernel_shape", geo->kernel);
    a.set("dilations", geo->dilations);
    a.set("pads", pads);
    a.set("group", geo->group);
    w.node(".conv", "Conv", std::move(inputs), g.value(n.output(0)).type, std::move(a), n.output(0));
    ctx.note("ConvTranspose '" + n.name + "' as a Conv" + (strided ? " of its zero-spread input" : ""));
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
