// Ops that cut tensors apart or join them: Concat, Split, Slice, Gather.
#include <algorithm>
#include <numeric>

#include "core/ops/tensor/tensor_families.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops::tensor {

namespace {

using ir::kUnknownDim;

// ---- Concat -------------------------------------------------------------

ir::TensorType inferConcat(const OpContext& ctx) {
  if (ctx.numInputs() == 0) ctx.fail("needs at least one input");
  if (!ctx.attrs().has("axis")) ctx.fail("missing the 'axis' attribute");
  const ir::DType dt = ctx.dtype(0);
  const ir::TensorType* ranked = nullptr;
  size_t rankedIndex = 0;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    const ir::TensorType& t = ctx.type(i);
    if (t.dtype != dt)
      ctx.fail("input " + std::to_string(i) + " has type " + std::string(ir::dtypeName(t.dtype)) + ", input 0 has " +
               std::string(ir::dtypeName(dt)));
    if (!t.rankKnown) continue;
    if (!ranked) {
      ranked = &t;
      rankedIndex = i;
    } else if (t.shape.size() != ranked->shape.size()) {
      ctx.fail("inputs have different ranks: input " + std::to_string(rankedIndex) + " is " +
               ir::shapeToString(ranked->shape) + ", input " + std::to_string(i) + " is " + ir::shapeToString(t.shape));
    }
  }
  if (!ranked) return unknownRank(dt);
  const int64_t rank = static_cast<int64_t>(ranked->shape.size());
  const auto axis = static_cast<size_t>(normalizeAxis(ctx.attrs().getInt("axis", 0), rank));
  if (rank == 0) ctx.fail("cannot concatenate scalars");

  ir::Shape out(static_cast<size_t>(rank), kUnknownDim);
  int64_t axisSum = 0;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    const ir::TensorType& t = ctx.type(i);
    if (!t.rankKnown) {
      axisSum = kUnknownDim;
      continue;
    }
    for (size_t d = 0; d < out.size(); ++d) {
      if (d == axis) continue;
      if (t.shape[d] < 0) continue;
      if (out[d] >= 0 && out[d] != t.shape[d])
        ctx.fail("input " + std::to_string(i) + " has shape " + ir::shapeToString(t.shape) +
                 ", which does not match the other inputs on dim " + std::to_string(d));
      out[d] = t.shape[d];
    }
    axisSum = (axisSum < 0 || t.shape[axis] < 0) ? kUnknownDim : axisSum + t.shape[axis];
  }
  out[axis] = axisSum;
  return ir::TensorType{dt, out, true};
}

std::vector<ir::Tensor> computeConcat(const OpContext& ctx) {
  const ir::TensorType type = inferConcat(ctx);
  const size_t axis = static_cast<size_t>(normalizeAxis(ctx.attrs().getInt("axis", 0), ctx.rank(0)));
  ir::Tensor out = makeTensor(ctx, type.dtype, type.shape);
  const int64_t outer = dimProduct(type.shape, 0, axis);
  const int64_t outBlock = dimProduct(type.shape, axis, type.shape.size());
  int64_t offset = 0;  // start of this input's block within each output block
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    const ir::Tensor& in = ctx.tensor(i);
    const int64_t block = dimProduct(in.shape(), axis, in.shape().size());
    for (int64_t o = 0; o < outer; ++o) copyElements(in, o * block, out, o * outBlock + offset, block);
    offset += block;
  }
  return {std::move(out)};
}

// ---- Split --------------------------------------------------------------

// Sizes of the parts along the axis of extent `dim` (maybe unknown); nullopt
// when they depend on an unknown dim or an unknown split input.
std::optional<std::vector<int64_t>> splitSizes(const OpContext& ctx, int64_t dim) {
  const auto n = static_cast<int64_t>(ctx.numOutputs());
  if (n == 0) ctx.fail("has no outputs");
  std::optional<std::vector<int64_t>> sizes;
  bool given = false;
  if (ctx.has(1)) {  // an input since opset 13 (and in opset 1)
    given = true;
    sizes = knownInts(ctx, 1, "split");
  } else if (ctx.opset() < 13 && ctx.attrs().has("split")) {
    given = true;
    sizes = ctx.attrs().getInts("split");
  }
  if (given) {
    if (!sizes) return std::nullopt;
    if (static_cast<int64_t>(sizes->size()) != n)
      ctx.fail("split " + intsToString(*sizes) + " has " + std::to_string(sizes->size()) + " sizes for " +
               std::to_string(n) + " outputs");
    int64_t sum = 0;
    for (int64_t s : *sizes) {
      if (s < 0) ctx.fail("split " + intsToString(*sizes) + " has a negative size");
      sum += s;
    }
    if (dim >= 0 && sum != dim)
      ctx.fail("split " + intsToString(*sizes) + " sums to " + std::to_string(sum) + ", but the dim is " +
               std::to_string(dim));
    return sizes;
  }
  if (dim < 0) return std::nullopt;
  if (ctx.attrs().has("num_outputs")) {
    // Opset 18: chunks of ceil(dim / n), the last one smaller.
    const int64_t numOutputs = ctx.attrs().getInt("num_outputs", n);
    if (numOutputs != n)
      ctx.fail("num_outputs is " + std::to_string(numOutputs) + " but the node has " + std::to_string(n) + " outputs");
    const int64_t chunk = (dim + n - 1) / n;
    const int64_t last = dim - chunk * (n - 1);
    if (last < 0) ctx.fail("cannot split a dim of " + std::to_string(dim) + " into " + std::to_string(n) + " parts");
    std::vector<int64_t> out(static_cast<size_t>(n), chunk);
    out.back() = last;
    return out;
  }
  if (dim % n != 0)
    ctx.fail("cannot split a dim of " + std::to_string(dim) + " into " + std::to_string(n) + " equal parts");
  return std::vector<int64_t>(static_cast<size_t>(n), dim / n);
}

std::vector<ir::TensorType> inferSplit(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  const size_t n = ctx.numOutputs();
  if (!in.rankKnown) {
    splitSizes(ctx, kUnknownDim);  // still validates what is known
    return std::vector<ir::TensorType>(n, unknownRank(in.dtype));
  }
  const auto axis = static_cast<size_t>(normalizeAxis(ctx.attrs().getInt("axis", 0), ctx.rank(0)));
  if (in.shape.empty()) ctx.fail("cannot split a scalar");
  auto sizes = splitSizes(ctx, in.shape[axis]);
  std::vector<ir::TensorType> out(n, in);
  for (size_t i = 0; i < n; ++i) out[i].shape[axis] = sizes ? (*sizes)[i] : kUnknownDim;
  return out;
}

std::vector<ir::Tensor> computeSplit(const OpContext& ctx) {
  const ir::Tensor& in = ctx.tensor(0);
  if (in.rank() == 0) ctx.fail("cannot split a scalar");
  const auto axis = static_cast<size_t>(normalizeAxis(ctx.attrs().getInt("axis", 0), in.rank()));
  const auto sizes = splitSizes(ctx, in.shape()[axis]);
  if (!sizes) ctx.fail("the split input must be known");
  const int64_t outer = dimProduct(in.shape(), 0, axis);
  const int64_t inner = dimProduct(in.shape(), axis + 1, in.shape().size());
  const int64_t inBlock = in.shape()[axis] * inner;
  std::vector<ir::Tensor> outs;
  int64_t offset = 0;
  for (int64_t size : *sizes) {
    ir::Shape shape = in.shape();
    shape[axis] = size;
    ir::Tensor out = makeTensor(ctx, in.dtype(), shape);
    for (int64_t o = 0; o < outer; ++o) copyElements(in, o * inBlock + offset, out, o * size * inner, size * inner);
    offset += size * inner;
    outs.push_back(std::move(out));
  }
  return outs;
}

// ---- Slice --------------------------------------------------------------

struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;
};

// nullopt when some input is not known yet; axes normalised against `rank`.
std::optional<SliceParams> sliceParams(const OpContext& ctx, int64_t rank) {
  SliceParams p;
  if (ctx.opset() < 10) {
    if (!ctx.attrs().has("starts") || !ctx.attrs().has("ends")) ctx.fail("missing the 'starts'/'ends' attributes");
    p.starts = ctx.attrs().getInts("starts");
    p.ends = ctx.attrs().getInts("ends");
    if (ctx.attrs().has("axes")) p.axes = ctx.attrs().getInts("axes");
  } else {
    auto starts = knownInts(ctx, 1, "starts");
    auto ends = knownInts(ctx, 2, "ends");
    auto axes = ctx.has(3) ? knownInts(ctx, 3, "axes") : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
    auto steps = ctx.has(4) ? knownInts(ctx, 4, "steps") : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
    if (!starts || !ends || !axes || !steps) return std::nullopt;
    p.starts = std::move(*starts);
    p.ends = std::move(*ends);
    p.axes = ctx.has(3) ? std::move(*axes) : std::vector<int64_t>{};
    p.steps = std::move(*steps);
    if (ctx.has(3) && p.axes.size() != p.starts.size())
      ctx.fail("axes " + intsToString(p.axes) + " and starts " + intsToString(p.starts) + " differ in length");
    if (ctx.has(4) && p.steps.size() != p.starts.size())
      ctx.fail("steps " + intsToString(p.steps) + " and starts " + intsToString(p.starts) + " differ in length");
  }
  const size_t k = p.starts.size();
  if (p.ends.size() != k)
    ctx.fail("starts " + intsToString(p.starts) + " and ends " + intsToString(p.ends) + " differ in length");
  if (p.axes.empty() && k > 0) {
    if (static_cast<int64_t>(k) > rank)
      ctx.fail("starts has " + std::to_string(k) + " entries for an input of rank " + std::to_string(rank));
    p.axes.resize(k);
    std::iota(p.axes.begin(), p.axes.end(), 0);
  } else if (p.axes.size() != k) {
    ctx.fail("axes " + intsToString(p.axes) + " and starts " + intsToString(p.starts) + " differ in length");
  }
  if (p.steps.empty()) p.steps.assign(k, 1);
  for (int64_t s : p.steps)
    if (s == 0) ctx.fail("slice step cannot be 0");
  p.axes = normalizeAxes(ctx, p.axes, rank);
  return p;
}

// First index and element count of a slice along a dim of extent `dim`,
// with the ONNX clamping (which also absorbs INT64_MAX / INT64_MIN ends).
std::pair<int64_t, int64_t> sliceRange(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (dim == 0) return {0, 0};
  if (start < 0) start += dim;  // cannot overflow: dim >= 0
  if (end < 0) end += dim;
  if (step > 0) {
    const int64_t s = std::clamp<int64_t>(start, 0, dim);
    const int64_t e = std::clamp<int64_t>(end, 0, dim);
    return {s, e > s ? (e - s - 1) / step + 1 : 0};
  }
  const int64_t s = std::clamp<int64_t>(start, 0, dim - 1);
  const int64_t e = std::clamp<int64_t>(end, -1, dim - 1);
  const uint64_t magnitude = static_cast<uint64_t>(-(step + 1)) + 1;  // |step| without overflow
  return {s, s > e ? static_cast<int64_t>(static_cast<uint64_t>(s - e - 1) / magnitude) + 1 : 0};
}

ir::TensorType inferSlice(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  if (!in.rankKnown) return unknownRank(in.dtype);
  const int64_t rank = ctx.rank(0);
  auto p = sliceParams(ctx, rank);
  ir::TensorType out = in;
  if (!p) {
    // Only the axes, when known, tell which dims keep their extent.
    auto axes = ctx.has(3) ? knownInts(ctx, 3, "axes") : std::nullopt;
    if (!axes) return unknownDims(in.dtype, rank);
    for (int64_t a : normalizeAxes(ctx, *axes, rank)) out.shape[static_cast<size_t>(a)] = kUnknownDim;
    return out;
  }
  for (size_t i = 0; i < p->axes.size(); ++i) {
    int64_t& d = out.shape[static_cast<size_t>(p->axes[i])];
    if (d >= 0) d = sliceRange(d, p->starts[i], p->ends[i], p->steps[i]).second;
  }
  return out;
}

std::vector<ir::Tensor> computeSlice(const OpContext& ctx) {
  const ir::Tensor& in = ctx.tensor(0);
  auto p = sliceParams(ctx, in.rank());
  if (!p) ctx.fail("the slice parameters must be known");
  const std::vector<int64_t> strides = stridesOf(in.shape());
  ir::Shape outShape = in.shape();
  std::vector<int64_t> first(outShape.size(), 0), step(outShape.size(), 1);
  for (size_t i = 0; i < p->axes.size(); ++i) {
    const auto a = static_cast<size_t>(p->axes[i]);
    auto [s, n] = sliceRange(in.shape()[a], p->starts[i], p->ends[i], p->steps[i]);
    first[a] = s;
    step[a] = p->steps[i];
    outShape[a] = n;
  }
  std::vector<std::vector<int64_t>> offsets(outShape.size());
  for (size_t a = 0; a < outShape.size(); ++a) {
    offsets[a].resize(static_cast<size_t>(outShape[a]));
    // Indices stay inside [0, dim) by construction, so no overflow here.
    for (int64_t k = 0; k < outShape[a]; ++k) offsets[a][static_cast<size_t>(k)] = (first[a] + k * step[a]) * strides[a];
  }
  return {gatherByAxes(ctx, in, outShape, offsets, nullptr)};
}

// ---- Gather -------------------------------------------------------------

ir::TensorType inferGather(const OpContext& ctx) {
  const ir::TensorType& data = ctx.type(0);
  const ir::TensorType& idx = ctx.type(1);
  ctx.expectDType(1, {ir::DType::Int64, ir::DType::Int32});
  if (!data.rankKnown || !idx.rankKnown) return unknownRank(data.dtype);
  const int64_t rank = ctx.rank(0);
  if (rank == 0) ctx.fail("data must have rank >= 1");
  const auto axis = static_cast<size_t>(normalizeAxis(ctx.attrs().getInt("axis", 0), rank));
  const int64_t dim = data.shape[axis];
  if (const ir::Tensor* v = ctx.value(1); v && dim >= 0) {
    for (int64_t i = 0; i < v->numel(); ++i) {
      const int64_t k = v->getInt64(i);
      if (k < -dim || k >= dim)
        ctx.fail("index " + std::to_string(k) + " is out of range for axis " + std::to_string(axis) + " of size " +
                 std::to_string(dim));
    }
  }
  ir::Shape out(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.shape.end());
  return ir::TensorType{data.dtype, out, true};
}

std::vector<ir::Tensor> computeGather(const OpContext& ctx) {
  const ir::TensorType type = inferGather(ctx);  // also checks every index
  const ir::Tensor& data = ctx.tensor(0);
  const ir::Tensor& idx = ctx.tensor(1);
  const auto axis = static_cast<size_t>(normalizeAxis(ctx.attrs().getInt("axis", 0), data.rank()));
  const int64_t dim = data.shape()[axis];
  const int64_t outer = dimProduct(data.shape(), 0, axis);
  const int64_t inner = dimProduct(data.shape(), axis + 1, data.shape().size());
  const std::vector<int64_t> indices = idx.toInt64s();
  ir::Tensor out = makeTensor(ctx, data.dtype(), type.shape);
  const auto count = static_cast<int64_t>(indices.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j) {
      int64_t k = indices[static_cast<size_t>(j)];
      if (k < 0) k += dim;
      copyElements(data, (o * dim + k) * inner, out, (o * count + j) * inner, inner);
    }
  return {std::move(out)};
}

}  // namespace

void registerSliceOps(OpRegistry& r) {
  const auto move = OpCategory::DataMovement;
  r.add(defineOp("Concat", move, inferConcat, computeConcat));
  OpDef split = defineOp("Split", move, nullptr, computeSplit);
  split.infer = inferSplit;
  r.add(std::move(split));
  OpDef slice = defineOp("Slice", move, inferSlice, computeSlice);
  slice.scratch = indexTableScratch;  // gathers through gatherByAxes
  r.add(std::move(slice));
  r.add(defineOp("Gather", move, inferGather, computeGather));
}

}  // namespace rammer::ops::tensor
