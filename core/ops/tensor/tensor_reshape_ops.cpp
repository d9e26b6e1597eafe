// Ops that change only the shape (or nothing) of their input: Reshape,
// Flatten, Squeeze, Unsqueeze, Identity, Dropout (inference), and the shape
// queries Shape and Size.
#include <algorithm>

#include "core/ops/tensor/tensor_families.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops::tensor {

namespace {

using ir::kUnknownDim;

// Resolves Reshape's requested shape against the input type, which may be
// partially known: 0 copies the input dim (unless allowzero), one -1 takes the
// remaining elements. Unknown input dims copied in place by 0 cancel out, so
// [?, 3, 4] -> [0, -1] still gives [?, 12].
ir::Shape resolveReshape(const OpContext& ctx, const ir::TensorType& in, const std::vector<int64_t>& req,
                         bool allowZero) {
  const std::string reqText = intsToString(req);
  const std::string inText = in.rankKnown ? ir::shapeToString(in.shape) : std::string("[*]");
  ir::Shape out(req.size());
  std::vector<bool> copied(req.size(), false);
  int64_t neg = -1;
  bool hasZero = false;
  for (size_t i = 0; i < req.size(); ++i) {
    const int64_t t = req[i];
    if (t == 0 && !allowZero) {
      if (in.rankKnown && i >= in.shape.size())
        ctx.fail("shape " + reqText + " copies dim " + std::to_string(i) + " (0) but the input " + inText +
                 " has rank " + std::to_string(in.shape.size()));
      out[i] = in.rankKnown ? in.shape[i] : kUnknownDim;
      copied[i] = true;
    } else if (t == -1) {
      if (neg >= 0) ctx.fail("shape " + reqText + " has more than one -1");
      neg = static_cast<int64_t>(i);
      out[i] = kUnknownDim;
    } else if (t < -1) {
      ctx.fail("shape " + reqText + " has an invalid dim " + std::to_string(t));
    } else {
      hasZero = hasZero || t == 0;
      out[i] = t;
    }
  }
  if (neg >= 0 && hasZero) ctx.fail("shape " + reqText + " has both -1 and 0 with allowzero=1");
  if (!in.rankKnown) return out;

  // Balance the element counts on known dims, cancelling dims copied by 0.
  bool cancelled = false;
  int64_t inKnown = 1, outKnown = 1;
  int inUnknown = 0, outUnknown = 0;
  bool overflow = false;
  for (size_t j = 0; j < in.shape.size(); ++j) {
    if (in.shape[j] >= 0) overflow |= __builtin_mul_overflow(inKnown, in.shape[j], &inKnown);
    else if (j < copied.size() && copied[j]) cancelled = true;
    else ++inUnknown;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (static_cast<int64_t>(i) == neg) continue;
    if (out[i] >= 0) overflow |= __builtin_mul_overflow(outKnown, out[i], &outKnown);
    else if (!copied[i]) ++outUnknown;
  }
  if (overflow || inUnknown > 0 || outUnknown > 0) return out;
  if (neg >= 0) {
    if (outKnown == 0)
      ctx.fail("cannot reshape " + inText + " to " + reqText + ": -1 is ambiguous when other dims are 0");
    if (inKnown % outKnown != 0)
      ctx.fail("cannot reshape " + inText + " (" + std::to_string(inKnown) + " elements) to " + reqText +
               ": " + std::to_string(inKnown) + " is not a multiple of " + std::to_string(outKnown));
    out[static_cast<size_t>(neg)] = inKnown / outKnown;
  } else if (inKnown != outKnown && !cancelled) {
    ctx.fail("cannot reshape " + inText + " (" + std::to_string(inKnown) + " elements) to " + reqText + " (" +
             std::to_string(outKnown) + " elements)");
  }
  return out;
}

std::optional<std::vector<int64_t>> reshapeTarget(const OpContext& ctx) {
  if (ctx.opset() < 5 && !ctx.has(1)) {
    if (!ctx.attrs().has("shape")) ctx.fail("missing the 'shape' attribute");
    return ctx.attrs().getInts("shape");
  }
  return knownInts(ctx, 1, "shape");
}

ir::TensorType inferReshape(const OpContext& ctx) {
  const ir::DType dt = ctx.dtype(0);
  const bool allowZero = ctx.attrs().getInt("allowzero", 0) != 0;
  auto req = reshapeTarget(ctx);
  if (!req) {
    if (auto n = knownLength(ctx, 1)) return unknownDims(dt, *n);
    return unknownRank(dt);
  }
  return ir::TensorType{dt, resolveReshape(ctx, ctx.type(0), *req, allowZero), true};
}

std::vector<ir::Tensor> computeReshape(const OpContext& ctx) {
  const ir::Tensor& in = ctx.tensor(0);
  const bool allowZero = ctx.attrs().getInt("allowzero", 0) != 0;
  auto req = reshapeTarget(ctx);
  if (!req) ctx.fail("the shape input must be known");
  ir::Shape shape = resolveReshape(ctx, in.type(), *req, allowZero);
  const int64_t n = checkedNumel(ctx, shape, in.dtype());
  if (n != in.numel())
    ctx.fail("cannot reshape " + ir::shapeToString(in.shape()) + " (" + std::to_string(in.numel()) +
             " elements) to " + intsToString(*req) + " (" + std::to_string(n) + " elements)");
  ir::Tensor out = in;
  out.reshape(std::move(shape));
  return {std::move(out)};
}

// Flatten keeps the dims before `axis` in the first output dim.
int64_t flattenAxis(const OpContext& ctx, int64_t rank) {
  const int64_t axis = ctx.attrs().getInt("axis", 1);
  if (axis < -rank || axis > rank)
    ctx.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

ir::TensorType inferFlatten(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  if (!in.rankKnown) {
    const int64_t axis = ctx.attrs().getInt("axis", 1);
    return ir::TensorType{in.dtype, {axis == 0 ? 1 : kUnknownDim, kUnknownDim}, true};
  }
  const size_t axis = static_cast<size_t>(flattenAxis(ctx, ctx.rank(0)));
  return ir::TensorType{in.dtype, {dimProduct(in.shape, 0, axis), dimProduct(in.shape, axis, in.shape.size())}, true};
}

// Axes of Squeeze/Unsqueeze: an attribute before opset 13, an input since.
// nullopt when not given (Squeeze) or not known yet.
std::optional<std::vector<int64_t>> squeezeAxes(const OpContext& ctx) {
  if (ctx.opset() < 13) {
    if (!ctx.attrs().has("axes")) return std::nullopt;
    return ctx.attrs().getInts("axes");
  }
  if (!ctx.has(1)) return std::nullopt;
  return knownInts(ctx, 1, "axes");
}

ir::TensorType inferSqueeze(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  auto axes = squeezeAxes(ctx);
  const bool axesPending = ctx.opset() >= 13 && ctx.has(1) && !axes;
  if (!in.rankKnown) return unknownRank(in.dtype);
  const int64_t rank = ctx.rank(0);
  if (axesPending) {
    auto n = knownLength(ctx, 1);
    if (!n) return unknownRank(in.dtype);
    if (*n > rank) ctx.fail("cannot squeeze " + std::to_string(*n) + " axes from rank " + std::to_string(rank));
    return unknownDims(in.dtype, rank - *n);
  }
  if (!axes || axes->empty()) {
    // No (or empty) axes: every 1 goes; an unknown dim may or may not be 1.
    if (!in.fullyKnown()) return unknownRank(in.dtype);
    ir::Shape out;
    std::copy_if(in.shape.begin(), in.shape.end(), std::back_inserter(out), [](int64_t d) { return d != 1; });
    return ir::TensorType{in.dtype, out, true};
  }
  const std::vector<int64_t> norm = normalizeAxes(ctx, *axes, rank);
  ir::Shape out;
  for (int64_t a = 0; a < rank; ++a) {
    const int64_t d = in.shape[static_cast<size_t>(a)];
    if (std::find(norm.begin(), norm.end(), a) == norm.end()) {
      out.push_back(d);
    } else if (d != 1 && d != kUnknownDim) {
      ctx.fail("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(d) + " in shape " +
               ir::shapeToString(in.shape));
    }
  }
  return ir::TensorType{in.dtype, out, true};
}

ir::TensorType inferUnsqueeze(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  if (ctx.opset() < 13 && !ctx.attrs().has("axes")) ctx.fail("missing the 'axes' attribute");
  if (ctx.opset() >= 13 && !ctx.has(1)) ctx.fail("missing the 'axes' input");
  auto axes = squeezeAxes(ctx);
  if (!in.rankKnown) return unknownRank(in.dtype);
  const int64_t rank = ctx.rank(0);
  if (!axes) {
    if (auto n = knownLength(ctx, 1)) return unknownDims(in.dtype, rank + *n);
    return unknownRank(in.dtype);
  }
  const int64_t outRank = rank + static_cast<int64_t>(axes->size());
  const std::vector<int64_t> norm = normalizeAxes(ctx, *axes, outRank);
  ir::Shape out;
  size_t next = 0;
  for (int64_t a = 0; a < outRank; ++a) {
    if (std::find(norm.begin(), norm.end(), a) != norm.end()) out.push_back(1);
    else out.push_back(in.shape[next++]);
  }
  return ir::TensorType{in.dtype, out, true};
}

// Reshape-like ops compute by copying the input into the inferred shape.
std::vector<ir::Tensor> computeAsReshape(const OpContext& ctx, const ir::TensorType& type) {
  if (!type.fullyKnown()) ctx.fail("could not determine the output shape");
  ir::Tensor out = ctx.tensor(0);
  if (ir::numElements(type.shape) != out.numel())
    ctx.fail("cannot reshape " + ir::shapeToString(out.shape()) + " to " + ir::shapeToString(type.shape));
  out.reshape(type.shape);
  return {std::move(out)};
}

// Shape's [start, end) after opset 15's clamping to [0, rank].
std::pair<int64_t, int64_t> shapeRange(const OpContext& ctx, int64_t rank) {
  auto clampAxis = [rank](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank); };
  const int64_t start = clampAxis(ctx.attrs().getInt("start", 0));
  const int64_t end = ctx.attrs().has("end") ? clampAxis(ctx.attrs().getInt("end", rank)) : rank;
  return {start, std::max(start, end)};
}

ir::TensorType inferShape(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  if (!in.rankKnown) return unknownDims(ir::DType::Int64, 1);
  auto [start, end] = shapeRange(ctx, ctx.rank(0));
  return ir::TensorType{ir::DType::Int64, {end - start}, true};
}

std::vector<ir::Tensor> computeShape(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  if (!in.fullyKnown()) ctx.fail("input shape " + ir::typeToString(in) + " is not fully known");
  auto [start, end] = shapeRange(ctx, ctx.rank(0));
  std::vector<int64_t> dims(in.shape.begin() + start, in.shape.begin() + end);
  return {ir::Tensor::fromVector<int64_t>({end - start}, dims)};
}

std::vector<ir::Tensor> computeSize(const OpContext& ctx) {
  const ir::TensorType& in = ctx.type(0);
  if (!in.fullyKnown()) ctx.fail("input shape " + ir::typeToString(in) + " is not fully known");
  return {ir::Tensor::scalar<int64_t>(ir::numElements(in.shape))};
}

// Dropout is inference-only here: training_mode (opset 12+) must be false,
// unless the ratio is a constant 0 (torchvision's Swin exports F.dropout with
// p = 0 and training left on): then every element is kept, unscaled.
void checkDropoutMode(const OpContext& ctx) {
  if (!ctx.has(2)) return;
  const ir::Tensor* mode = ctx.value(2);
  if (!mode || mode->numel() == 0 || mode->getDouble(0) == 0.0) return;
  const ir::Tensor* ratio = ctx.has(1) ? ctx.value(1) : nullptr;
  if (ratio && ratio->numel() > 0 && ratio->getDouble(0) == 0.0) return;
  ctx.fail("training-mode Dropout is not supported (only with a constant ratio of 0)");
}

// The mask is bool since opset 10, the data's type before.
ir::DType dropoutMaskType(const OpContext& ctx) { return ctx.opset() < 10 ? ctx.dtype(0) : ir::DType::Bool; }

std::vector<ir::TensorType> inferDropout(const OpContext& ctx) {
  checkDropoutMode(ctx);
  const ir::TensorType& in = ctx.type(0);
  return {in, ir::TensorType{dropoutMaskType(ctx), in.shape, in.rankKnown}};
}

std::vector<ir::Tensor> computeDropout(const OpContext& ctx) {
  checkDropoutMode(ctx);
  std::vector<ir::Tensor> out{ctx.tensor(0)};
  if (ctx.hasOutput(1)) {
    ir::Tensor mask = makeTensor(ctx, dropoutMaskType(ctx), out[0].shape());
    for (int64_t i = 0; i < mask.numel(); ++i) mask.setDouble(i, 1.0);
    out.push_back(std::move(mask));
  }
  return out;
}

}  // namespace

void registerReshapeOps(OpRegistry& r) {
  const auto move = OpCategory::DataMovement;
  r.add(defineOp("Reshape", move, inferReshape, computeReshape));
  r.add(defineOp("Flatten", move, inferFlatten,
                 [](const OpContext& ctx) { return computeAsReshape(ctx, inferFlatten(ctx)); }));
  r.add(defineOp("Squeeze", move, inferSqueeze,
                 [](const OpContext& ctx) { return computeAsReshape(ctx, inferSqueeze(ctx)); }));
  r.add(defineOp("Unsqueeze", move, inferUnsqueeze,
                 [](const OpContext& ctx) { return computeAsReshape(ctx, inferUnsqueeze(ctx)); }));
  r.add(defineOp("Identity", move, [](const OpContext& ctx) { return ctx.type(0); },
                 [](const OpContext& ctx) { return std::vector{ctx.tensor(0)}; }));

  OpDef dropout = defineOp("Dropout", move, nullptr, computeDropout);
  dropout.infer = inferDropout;
  r.add(std::move(dropout));

  OpDef shape = defineOp("Shape", move, inferShape, computeShape);
  shape.computeFromTypesOnly = true;
  r.add(std::move(shape));
  OpDef size = defineOp("Size", move, [](const OpContext&) { return ir::TensorType{ir::DType::Int64, {}, true}; },
                        computeSize);
  size.computeFromTypesOnly = true;
  r.add(std::move(size));
}

}  // namespace rammer::ops::tensor
