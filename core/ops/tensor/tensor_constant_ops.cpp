// Ops that create tensors from attributes or a few scalars: Constant,
// ConstantOfShape, Range.
#include <cmath>

#include "core/ops/tensor/tensor_families.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops::tensor {

namespace {

// ---- Constant -----------------------------------------------------------

ir::Tensor stringTensor(const std::vector<std::string>& values, bool scalar) {
  ir::Tensor t(ir::DType::String, scalar ? ir::Shape{} : ir::Shape{static_cast<int64_t>(values.size())});
  t.strings() = values;
  return t;
}

ir::Tensor constantValue(const OpContext& ctx) {
  const ir::Attributes& a = ctx.attrs();
  if (const ir::Tensor* t = a.getTensor("value")) return *t;
  if (a.has("value_float")) return ir::Tensor::scalar<float>(a.getFloat("value_float", 0.0f));
  if (a.has("value_int")) return ir::Tensor::scalar<int64_t>(a.getInt("value_int", 0));
  if (a.has("value_string")) return stringTensor({a.getString("value_string", "")}, true);
  if (a.has("value_floats")) {
    auto v = a.getFloats("value_floats");
    return ir::Tensor::fromVector<float>({static_cast<int64_t>(v.size())}, v);
  }
  if (a.has("value_ints")) {
    auto v = a.getInts("value_ints");
    return ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v);
  }
  if (a.has("value_strings")) return stringTensor(a.getStrings("value_strings"), false);
  if (a.has("sparse_value")) ctx.fail("sparse constants are not supported");
  ctx.fail("has no value attribute");
}

// ---- ConstantOfShape ----------------------------------------------------

// The fill element: the 'value' attribute (one element), default float 0.
ir::Tensor fillValue(const OpContext& ctx) {
  const ir::Tensor* v = ctx.attrs().getTensor("value");
  if (!v) return ir::Tensor::scalar<float>(0.0f);
  if (v->numel() != 1) ctx.fail("value must have exactly one element, got shape " + ir::shapeToString(v->shape()));
  return *v;
}

std::optional<ir::Shape> constantShape(const OpContext& ctx) {
  auto shape = knownInts(ctx, 0, "shape");
  if (!shape) return std::nullopt;
  for (int64_t d : *shape)
    if (d < 0) ctx.fail("shape " + intsToString(*shape) + " has a negative dim");
  return *shape;
}

ir::TensorType inferConstantOfShape(const OpContext& ctx) {
  const ir::DType dt = fillValue(ctx).dtype();
  if (auto shape = constantShape(ctx)) return ir::TensorType{dt, *shape, true};
  if (auto n = knownLength(ctx, 0)) return unknownDims(dt, *n);
  return unknownRank(dt);
}

std::vector<ir::Tensor> computeConstantOfShape(const OpContext& ctx) {
  const ir::Tensor value = fillValue(ctx);
  auto shape = constantShape(ctx);
  if (!shape) ctx.fail("the shape input must be known");
  ir::Tensor out = makeTensor(ctx, value.dtype(), *shape);
  const int64_t n = out.numel();
  if (n == 0) return {std::move(out)};
  // Fill by doubling the filled prefix: O(log n) block copies.
  copyElements(value, 0, out, 0, 1);
  for (int64_t done = 1; done < n; done *= 2) copyElements(out, 0, out, done, std::min(done, n - done));
  return {std::move(out)};
}

// ---- Range --------------------------------------------------------------

constexpr int64_t kMaxRangeElements = int64_t{1} << 32;

// Element count max(ceil((limit - start) / delta), 0), computed exactly for
// integers (128-bit, so extreme int64 bounds cannot overflow).
int64_t rangeCount(const OpContext& ctx, const ir::Tensor& start, const ir::Tensor& limit, const ir::Tensor& delta) {
  if (isFloating(start.dtype())) {
    const double d = delta.getDouble(0);
    if (d == 0.0) ctx.fail("delta cannot be 0");
    const double n = std::ceil((limit.getDouble(0) - start.getDouble(0)) / d);
    if (std::isnan(n) || n > static_cast<double>(kMaxRangeElements)) ctx.fail("the range has too many elements");
    return n > 0 ? static_cast<int64_t>(n) : 0;
  }
  const __int128 s = start.getInt64(0), l = limit.getInt64(0), d = delta.getInt64(0);
  if (d == 0) ctx.fail("delta cannot be 0");
  const __int128 diff = l - s;
  __int128 n = 0;
  if (d > 0 && diff > 0) n = (diff + d - 1) / d;
  if (d < 0 && diff < 0) n = (-diff + -d - 1) / -d;
  if (n > kMaxRangeElements) ctx.fail("the range has too many elements");
  return static_cast<int64_t>(n);
}

void checkRangeInputs(const OpContext& ctx) {
  ctx.expectInputs(3, 3);
  const ir::DType dt = ctx.dtype(0);
  ctx.expectDType(0, {ir::DType::Float32, ir::DType::Float64, ir::DType::Int16, ir::DType::Int32, ir::DType::Int64});
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.dtype(i) != dt)
      ctx.fail("input " + std::to_string(i) + " has type " + std::string(ir::dtypeName(ctx.dtype(i))) +
               ", input 0 has " + std::string(ir::dtypeName(dt)));
    const ir::TensorType& t = ctx.type(i);
    if (t.rankKnown && ir::numElements(t.shape) > 1) ctx.fail("input " + std::to_string(i) + " must be a scalar");
    if (const ir::Tensor* v = ctx.value(i); v && v->numel() != 1)
      ctx.fail("input " + std::to_string(i) + " must be a scalar");
  }
}

ir::TensorType inferRange(const OpContext& ctx) {
  checkRangeInputs(ctx);
  const ir::Tensor *s = ctx.value(0), *l = ctx.value(1), *d = ctx.value(2);
  const int64_t n = s && l && d ? rangeCount(ctx, *s, *l, *d) : ir::kUnknownDim;
  return ir::TensorType{ctx.dtype(0), {n}, true};
}

std::vector<ir::Tensor> computeRange(const OpContext& ctx) {
  checkRangeInputs(ctx);
  const ir::Tensor &s = ctx.tensor(0), &l = ctx.tensor(1), &d = ctx.tensor(2);
  const int64_t n = rangeCount(ctx, s, l, d);
  ir::Tensor out = makeTensor(ctx, s.dtype(), {n});
  auto fill = [&]<class T>(T start, T delta) {
    T* o = out.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>) o[i] = start + static_cast<T>(i) * delta;
      else o[i] = static_cast<T>(static_cast<__int128>(start) + static_cast<__int128>(i) * delta);  // stays in range
    }
  };
  switch (s.dtype()) {
    case ir::DType::Float32: fill(s.data<float>()[0], d.data<float>()[0]); break;
    case ir::DType::Float64: fill(s.data<double>()[0], d.data<double>()[0]); break;
    case ir::DType::Int16: fill(s.data<int16_t>()[0], d.data<int16_t>()[0]); break;
    case ir::DType::Int32: fill(s.data<int32_t>()[0], d.data<int32_t>()[0]); break;
    case ir::DType::Int64: fill(s.data<int64_t>()[0], d.data<int64_t>()[0]); break;
    default: ctx.fail("unsupported type " + std::string(ir::dtypeName(s.dtype())));
  }
  return {std::move(out)};
}

}  // namespace

void registerConstantOps(OpRegistry& r) {
  r.add(defineOp("Constant", OpCategory::Constant,
                 [](const OpContext& ctx) {
                   // Large weights come as 'value': read its type without a copy.
                   if (const ir::Tensor* t = ctx.attrs().getTensor("value")) return t->type();
                   return constantValue(ctx).type();
                 },
                 [](const OpContext& ctx) { return std::vector{constantValue(ctx)}; }));
  r.add(defineOp("ConstantOfShape", OpCategory::Constant, inferConstantOfShape, computeConstantOfShape));
  r.add(defineOp("Range", OpCategory::DataMovement, inferRange, computeRange));
}

}  // namespace rammer::ops::tensor
