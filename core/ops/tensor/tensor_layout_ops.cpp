// Ops that rearrange or replicate elements: Transpose, Expand, Tile, Pad,
// DepthToSpace, SpaceToDepth. All compute through gatherByAxes(), which maps
// each output axis position to a source offset.
#include <algorithm>

#include "core/ops/tensor/tensor_families.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops::tensor {

namespace {

using ir::kUnknownDim;

// ---- Transpose ----------------------------------------------------------

std::vector<int64_t> transposePerm(const OpContext& ctx, int64_t rank) {
  std::vector<int64_t> perm;
  if (ctx.attrs().has("perm")) {
    perm = ctx.attrs().getInts("perm");
  } else {
    for (int64_t i = rank; i-- > 0;) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != rank)
    ctx.fail("perm " + intsToString(perm) + " has " + std::to_string(perm.size()) + " entries for rank " +
             std::to_string(rank));
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) ctx.fail("perm " + intsToString(perm) + " is not a permutation");
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

ir::TensorType inferTranspose(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  if (!in.rankKnown) {
    if (ctx.attrs().has("perm"))
      return unknownDims(in.dtype, static_cast<int64_t>(ctx.attrs().getInts("perm").size()));
    return unknownRank(in.dtype);
  }
  const std::vector<int64_t> perm = transposePerm(ctx, ctx.rank(0));
  ir::TensorType out = in;
  for (size_t a = 0; a < perm.size(); ++a) out.shape[a] = in.shape[static_cast<size_t>(perm[a])];
  return out;
}

// ---- Expand -------------------------------------------------------------

// Bidirectional (numpy) broadcast of the input shape with the requested one.
ir::Shape expandShape(const OpContext& ctx, const ir::Shape& in, const std::vector<int64_t>& target) {
  const size_t rank = std::max(in.size(), target.size());
  ir::Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a = i < rank - in.size() ? 1 : in[i - (rank - in.size())];
    const int64_t b = i < rank - target.size() ? 1 : target[i - (rank - target.size())];
    if (b < 0) ctx.fail("shape " + intsToString(target) + " has a negative dim");
    if (a == 1) out[i] = b;
    else if (b == 1 || a == b) out[i] = a;
    else if (a == kUnknownDim) out[i] = b;  // valid only if it is 1 or b at run time
    else ctx.fail("cannot expand " + ir::shapeToString(in) + " to " + intsToString(target));
  }
  return out;
}

ir::TensorType inferExpand(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  auto target = knownInts(ctx, 1, "shape");
  if (!in.rankKnown) return unknownRank(in.dtype);
  if (!target) {
    auto n = knownLength(ctx, 1);
    if (!n) return unknownRank(in.dtype);
    return unknownDims(in.dtype, std::max<int64_t>(ctx.rank(0), *n));
  }
  return ir::TensorType{in.dtype, expandShape(ctx, in.shape, *target), true};
}

std::vector<ir::Tensor> computeExpand(const OpContext& ctx) {
  const ir::Tensor& in = ctx.tensor(0);
  const ir::Shape outShape = expandShape(ctx, in.shape(), requireInts(ctx, 1, "shape"));
  const std::vector<int64_t> strides = stridesOf(in.shape());
  const size_t lead = outShape.size() - in.shape().size();
  std::vector<std::vector<int64_t>> offsets(outShape.size());
  for (size_t a = 0; a < outShape.size(); ++a) {
    offsets[a].assign(static_cast<size_t>(outShape[a]), 0);
    if (a < lead || in.shape()[a - lead] == 1) continue;  // broadcast: always element 0 of this axis
    for (int64_t k = 0; k < outShape[a]; ++k) offsets[a][static_cast<size_t>(k)] = k * strides[a - lead];
  }
  return {gatherByAxes(ctx, in, outShape, offsets, nullptr)};
}

// ---- Tile ---------------------------------------------------------------

std::optional<std::vector<int64_t>> tileRepeats(const OpContext& ctx, int64_t rank) {
  auto repeats = knownInts(ctx, 1, "repeats");
  if (!repeats) return std::nullopt;
  if (static_cast<int64_t>(repeats->size()) != rank)
    ctx.fail("repeats " + intsToString(*repeats) + " has " + std::to_string(repeats->size()) +
             " entries for an input of rank " + std::to_string(rank));
  for (int64_t r : *repeats)
    if (r < 0) ctx.fail("repeats " + intsToString(*repeats) + " has a negative entry");
  return repeats;
}

ir::TensorType inferTile(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  if (!in.rankKnown) return unknownRank(in.dtype);
  auto repeats = tileRepeats(ctx, ctx.rank(0));
  if (!repeats) return unknownDims(in.dtype, ctx.rank(0));
  ir::TensorType out = in;
  for (size_t a = 0; a < out.shape.size(); ++a) {
    int64_t& d = out.shape[a];
    const int64_t r = (*repeats)[a];
    if (d >= 0 && __builtin_mul_overflow(d, r, &d)) ctx.fail("tiled shape is too large");
    if (r == 0) d = 0;
  }
  return out;
}

std::vector<ir::Tensor> computeTile(const OpContext& ctx) {
  const ir::Tensor& in = ctx.tensor(0);
  const ir::TensorType type = inferTile(ctx);
  const std::vector<int64_t> strides = stridesOf(in.shape());
  checkedNumel(ctx, type.shape, in.dtype());
  std::vector<std::vector<int64_t>> offsets(type.shape.size());
  for (size_t a = 0; a < type.shape.size(); ++a) {
    offsets[a].resize(static_cast<size_t>(type.shape[a]));
    for (int64_t k = 0; k < type.shape[a]; ++k) offsets[a][static_cast<size_t>(k)] = (k % in.shape()[a]) * strides[a];
  }
  return {gatherByAxes(ctx, in, type.shape, offsets, nullptr)};
}

// ---- Pad ----------------------------------------------------------------

// Pads per axis of the input, [begins..., ends...] over all `rank` axes;
// nullopt when the pads (or axes) input is not known yet.
std::optional<std::vector<int64_t>> padAmounts(const OpContext& ctx, int64_t rank) {
  std::vector<int64_t> pads, axes;
  if (ctx.opset() < 11) {
    if (!ctx.attrs().has("pads")) ctx.fail("missing the 'pads' attribute");
    pads = ctx.attrs().getInts("pads");
  } else {
    auto p = knownInts(ctx, 1, "pads");
    if (!p) return std::nullopt;
    pads = std::move(*p);
    if (ctx.has(3)) {  // opset 18: pads only for these axes
      auto a = knownInts(ctx, 3, "axes");
      if (!a) return std::nullopt;
      axes = normalizeAxes(ctx, *a, rank);
    }
  }
  if (axes.empty() && !(ctx.opset() >= 11 && ctx.has(3))) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size())
    ctx.fail("pads " + intsToString(pads) + " must have " + std::to_string(2 * axes.size()) + " entries");
  std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    full[static_cast<size_t>(axes[i])] = pads[i];
    full[static_cast<size_t>(axes[i] + rank)] = pads[i + axes.size()];
  }
  return full;
}

std::string padMode(const OpContext& ctx) {
  std::string mode = ctx.attrs().getString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    ctx.fail("unsupported pad mode '" + mode + "'");
  return mode;
}

ir::TensorType inferPad(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  padMode(ctx);
  if (ctx.opset() >= 11 && ctx.has(2) && ctx.dtype(2) != in.dtype)
    ctx.fail("constant_value has type " + std::string(ir::dtypeName(ctx.dtype(2))) + ", the data has " +
             std::string(ir::dtypeName(in.dtype)));
  if (!in.rankKnown) return unknownRank(in.dtype);
  const int64_t rank = ctx.rank(0);
  auto pads = padAmounts(ctx, rank);
  if (!pads) return unknownDims(in.dtype, rank);
  ir::TensorType out = in;
  for (size_t a = 0; a < out.shape.size(); ++a) {
    int64_t& d = out.shape[a];
    if (d < 0) continue;
    const int64_t begin = (*pads)[a], end = (*pads)[a + static_cast<size_t>(rank)];
    if (__builtin_add_overflow(d, begin, &d) || __builtin_add_overflow(d, end, &d) || d < 0)
      ctx.fail("pads " + intsToString(*pads) + " give a negative or huge dim for input " + ir::shapeToString(in.shape));
  }
  return out;
}

// The element used for padding in constant mode, as a 1-element tensor.
ir::Tensor padFill(const OpContext& ctx, ir::DType dtype) {
  ir::Tensor fill(dtype, {});
  if (ctx.opset() >= 11) {
    if (ctx.has(2)) {
      const ir::Tensor& v = ctx.tensor(2);
      if (v.numel() != 1) ctx.fail("constant_value must have one element, got shape " + ir::shapeToString(v.shape()));
      copyElements(v, 0, fill, 0, 1);
    }
  } else if (dtype != ir::DType::String) {
    fill.setDouble(0, ctx.attrs().getFloat("value", 0.0f));
  }
  return fill;
}

// Source position along an axis of extent `dim` for the padded position i
// (relative to the input's start); -1 for the constant fill.
int64_t padSource(const std::string& mode, int64_t i, int64_t dim) {
  if (i >= 0 && i < dim) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return std::clamp<int64_t>(i, 0, dim - 1);
  if (mode == "wrap") return ((i % dim) + dim) % dim;
  // reflect: mirror on the first and last elements (period 2 * (dim - 1)).
  if (dim == 1) return 0;
  const int64_t period = 2 * (dim - 1);
  const int64_t m = ((i % period) + period) % period;
  return m < dim ? m : period - m;
}

std::vector<ir::Tensor> computePad(const OpContext& ctx) {
  const ir::Tensor& in = ctx.tensor(0);
  const ir::TensorType type = inferPad(ctx);
  const int64_t rank = in.rank();
  const auto known = padAmounts(ctx, rank);
  if (!known) ctx.fail("the pads input must be known");
  const std::vector<int64_t>& pads = *known;
  const std::string mode = padMode(ctx);
  const std::vector<int64_t> strides = stridesOf(in.shape());
  checkedNumel(ctx, type.shape, in.dtype());
  std::vector<std::vector<int64_t>> offsets(static_cast<size_t>(rank));
  for (size_t a = 0; a < offsets.size(); ++a) {
    const int64_t dim = in.shape()[a];
    const int64_t begin = pads[a];
    if (dim == 0 && type.shape[a] > 0 && mode != "constant")
      ctx.fail("cannot " + mode + "-pad axis " + std::to_string(a) + " of size 0");
    offsets[a].resize(static_cast<size_t>(type.shape[a]));
    for (int64_t k = 0; k < type.shape[a]; ++k) {
      const int64_t src = padSource(mode, k - begin, dim);
      offsets[a][static_cast<size_t>(k)] = src < 0 ? -1 : src * strides[a];
    }
  }
  const ir::Tensor fill = padFill(ctx, in.dtype());
  return {gatherByAxes(ctx, in, type.shape, offsets, &fill)};
}

// ---- DepthToSpace / SpaceToDepth ---------------------------------------

int64_t blockSize(const OpContext& ctx) {
  if (!ctx.attrs().has("blocksize")) ctx.fail("missing the 'blocksize' attribute");
  const int64_t b = ctx.attrs().getInt("blocksize", 0);
  if (b <= 0) ctx.fail("blocksize must be positive, got " + std::to_string(b));
  return b;
}

bool crdMode(const OpContext& ctx) {
  const std::string mode = ctx.attrs().getString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") ctx.fail("unsupported mode '" + mode + "'");
  return mode == "CRD";
}

ir::TensorType inferDepthToSpace(const OpContext& ctx, bool toSpace) {
  const ir::TensorType& in = ctx.type(0);
  const int64_t b = blockSize(ctx);
  if (toSpace) crdMode(ctx);
  if (!in.rankKnown) return unknownDims(in.dtype, 4);
  if (ctx.rank(0) != 4) ctx.fail("input must be 4-D [N, C, H, W], got " + ir::shapeToString(in.shape));
  auto mul = [&](int64_t d, int64_t f) {
    int64_t p = kUnknownDim;
    if (d >= 0 && __builtin_mul_overflow(d, f, &p)) ctx.fail("blocksize is too large");
    return p;
  };
  auto div = [&](int64_t d, int64_t f, const char* what) {
    if (d < 0) return kUnknownDim;
    if (d % f != 0)
      ctx.fail(std::string(what) + " of " + ir::shapeToString(in.shape) + " is not divisible by " + std::to_string(f));
    return d / f;
  };
  const int64_t bb = mul(b, b);
  const ir::Shape& s = in.shape;
  if (toSpace) return ir::TensorType{in.dtype, {s[0], div(s[1], bb, "channels"), mul(s[2], b), mul(s[3], b)}, true};
  return ir::TensorType{in.dtype, {s[0], mul(s[1], bb), div(s[2], b, "height"), div(s[3], b, "width")}, true};
}

std::vector<ir::Tensor> computeDepthToSpace(const OpContext& ctx, bool toSpace) {
  const ir::TensorType type = inferDepthToSpace(ctx, toSpace);
  const ir::Tensor& in = ctx.tensor(0);
  const int64_t b = blockSize(ctx);
  const ir::Shape& s = in.shape();
  // Through a 6-D view, as the ONNX spec defines these ops.
  ir::Tensor view = in;
  std::vector<int64_t> perm;
  if (!toSpace) {
    view.reshape({s[0], s[1], s[2] / b, b, s[3] / b, b});
    perm = {0, 3, 5, 1, 2, 4};
  } else if (crdMode(ctx)) {
    view.reshape({s[0], s[1] / (b * b), b, b, s[2], s[3]});
    perm = {0, 1, 4, 2, 5, 3};
  } else {
    view.reshape({s[0], b, b, s[1] / (b * b), s[2], s[3]});
    perm = {0, 3, 4, 1, 5, 2};
  }
  ir::Tensor out = transposeTensor(ctx, view, perm);
  out.reshape(type.shape);
  return {std::move(out)};
}

}  // namespace

void registerLayoutOps(OpRegistry& r) {
  const auto move = OpCategory::DataMovement;
  // Each gathers through per-element source indices (gatherByAxes).
  auto add = [&r](OpDef d) {
    d.scratch = indexTableScratch;
    r.add(std::move(d));
  };
  add(defineOp("Transpose", move, inferTranspose, [](const OpContext& ctx) {
    const ir::Tensor& in = ctx.tensor(0);
    return std::vector{transposeTensor(ctx, in, transposePerm(ctx, in.rank()))};
  }));
  add(defineOp("Expand", move, inferExpand, computeExpand));
  add(defineOp("Tile", move, inferTile, computeTile));
  add(defineOp("Pad", move, inferPad, computePad));
  add(defineOp("DepthToSpace", move, [](const OpContext& ctx) { return inferDepthToSpace(ctx, true); },
               [](const OpContext& ctx) { return computeDepthToSpace(ctx, true); }));
  add(defineOp("SpaceToDepth", move, [](const OpContext& ctx) { return inferDepthToSpace(ctx, false); },
               [](const OpContext& ctx) { return computeDepthToSpace(ctx, false); }));
}

}  // namespace rammer::ops::tensor
