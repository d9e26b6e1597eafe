// Reductions over axes (Reduce*), index reductions (ArgMax/ArgMin) and the
// softmax family, with the opset-dependent axis conventions of each.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "core/ops/broadcast.h"
#include "core/ops/op_registry.h"

namespace rammer::ops {
namespace {

using ir::DType;
using ir::Shape;
using ir::Tensor;
using ir::TensorType;

double elementsOf(const TensorType& t) {
  return t.fullyKnown() ? static_cast<double>(ir::numElements(t.shape)) : 0.0;
}

int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

// ---- Reduce* ----

enum class Kind { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };

// Integer accumulation wraps (no signed-overflow UB); floats accumulate in double.
template <class T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;

template <class T>
T addWrap(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else return a + b;
}
template <class T>
T mulWrap(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(std::make_unsigned_t<T>(a) * std::make_unsigned_t<T>(b));
  else return a * b;
}

// Which reductions are defined on integers here (the others need logs/roots).
bool integerFriendly(Kind k) { return k != Kind::L2 && k != Kind::LogSum && k != Kind::LogSumExp; }

// Reduction of an empty set: ONNX gives -inf / +inf (or the type's
// extremes) for Max / Min and the neutral element otherwise.
template <class A>
A initial(Kind k) {
  using L = std::numeric_limits<A>;
  switch (k) {
    case Kind::Max: return L::has_infinity ? -L::infinity() : L::lowest();
    case Kind::Min: return L::has_infinity ? L::infinity() : L::max();
    case Kind::Prod: return A(1);
    default: return A(0);
  }
}

template <class A>
A combine(Kind k, A acc, A x) {
  switch (k) {
    case Kind::Max: return (x > acc || x != x) ? x : acc;  // NaN wins, as in numpy
    case Kind::Min: return (x < acc || x != x) ? x : acc;
    case Kind::Prod: return mulWrap(acc, x);
    case Kind::L1: return addWrap(acc, x < 0 ? mulWrap(x, A(-1)) : x);
    case Kind::L2:
    case Kind::SumSquare: return addWrap(acc, mulWrap(x, x));
    default: return addWrap(acc, x);
  }
}

// The axes to reduce, normalised and sorted, or nullopt when they come from
// an input whose value is unknown. `all` is set when every axis is reduced;
// `noop` when the op is the identity (empty axes with noop_with_empty_axes).
struct AxesChoice {
  std::vector<int64_t> axes;
  bool all = false;
  bool noop = false;
};

// ReduceSum moved axes to input 1 at opset 13, the others at opset 18.
bool axesFromInput(const OpContext& ctx) { return ctx.opset() >= (ctx.node().opType == "ReduceSum" ? 13 : 18); }

std::optional<AxesChoice> reduceAxes(const OpContext& ctx, int64_t rank) {
  std::vector<int64_t> raw;
  if (axesFromInput(ctx)) {
    ctx.expectInputs(1, 2);
    if (ctx.has(1)) {
      const Tensor* t = ctx.value(1);
      if (!t) return std::nullopt;
      if (t->rank() > 1) ctx.fail("axes must be 1-D, got shape " + ir::shapeToString(t->shape()));
      raw = t->toInt64s();
    }
  } else {
    ctx.expectInputs(1, 1);
    raw = ctx.attrs().getInts("axes");
  }
  AxesChoice c;
  // A scalar has one element whatever the axes say (normalizeAxis admits 0 and -1 for it).
  if (rank == 0) raw.clear();
  if (raw.empty()) {
    c.noop = ctx.attrs().getInt("noop_with_empty_axes", 0) != 0;
    c.all = !c.noop;
    if (c.all)
      for (int64_t d = 0; d < rank; ++d) c.axes.push_back(d);
    return c;
  }
  for (int64_t a : raw) c.axes.push_back(normalizeAxis(a, rank, "reduction axis"));
  std::sort(c.axes.begin(), c.axes.end());
  if (std::adjacent_find(c.axes.begin(), c.axes.end()) != c.axes.end()) ctx.fail("reduction axes repeat an axis");
  return c;
}

Shape reducedShape(const Shape& in, const std::vector<int64_t>& axes, bool keepdims) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    const bool r = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d));
    if (!r) out.push_back(in[d]);
    else if (keepdims) out.push_back(1);
  }
  return out;
}

std::vector<TensorType> inferReduce(const OpContext& ctx) {
  const TensorType& x = ctx.type(0);
  const bool keepdims = ctx.attrs().getInt("keepdims", 1) != 0;
  if (!x.rankKnown) return {TensorType{x.dtype, {}, false}};
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::optional<AxesChoice> c = reduceAxes(ctx, rank);
  if (!c) {  // axes not known: with keepdims only the rank survives
    if (keepdims) return {TensorType{x.dtype, Shape(x.shape.size(), ir::kUnknownDim), true}};
    return {TensorType{x.dtype, {}, false}};
  }
  if (c->noop) return {x};
  return {TensorType{x.dtype, reducedShape(x.shape, c->axes, keepdims), true}};
}

template <class T>
Tensor reduceTyped(const OpContext& ctx, Kind kind) {
  const Tensor& x = ctx.tensor(0);
  const bool keepdims = ctx.attrs().getInt("keepdims", 1) != 0;
  std::optional<AxesChoice> c = reduceAxes(ctx, x.rank());
  if (!c) ctx.fail("reduction axes must be known");
  if (c->noop) return x;

  using A = Acc<T>;
  Shape kept = x.shape();
  int64_t count = 1;  // elements folded into each output
  for (int64_t a : c->axes) {
    count *= kept[static_cast<size_t>(a)];
    kept[static_cast<size_t>(a)] = 1;
  }
  // Walk the input with the output (kept dims, reduced ones at extent 1)
  // broadcast against it: offset 1 of each run is the accumulator slot.
  const BroadcastPlan plan(x.shape(), kept);
  const int64_t step = plan.innerStride(1);
  const T* in = x.data<T>();
  std::vector<A> acc(static_cast<size_t>(ir::numElements(kept)), initial<A>(kind == Kind::LogSumExp ? Kind::Max : kind));
  auto fold = [&](auto&& f) {
    plan.forEachRun([&](int64_t o, const int64_t* off, int64_t n) {
      A* a = acc.data() + off[1];
      for (int64_t i = 0; i < n; ++i) a[i * step] = f(a[i * step], static_cast<A>(in[o + i]), off[1] + i * step);
    });
  };
  std::vector<A> maxima;
  if (kind == Kind::LogSumExp) {
    // log(sum(exp(x - m))) + m with m the maximum, so exp cannot overflow.
    fold([](A m, A v, int64_t) { return combine(Kind::Max, m, v); });
    maxima.swap(acc);
    acc.assign(maxima.size(), A(0));
    fold([&](A s, A v, int64_t slot) { return s + std::exp(v - maxima[static_cast<size_t>(slot)]); });
  } else {
    fold([kind](A s, A v, int64_t) { return combine(kind, s, v); });
  }

  Tensor out(x.dtype(), keepdims ? kept : reducedShape(x.shape(), c->axes, false));
  T* o = out.data<T>();
  for (size_t i = 0; i < acc.size(); ++i) {
    A v = acc[i];
    switch (kind) {
      case Kind::Mean:
        if constexpr (std::is_floating_point_v<A>) v = v / static_cast<A>(count);  // NaN when empty
        else v = count ? static_cast<A>(v / count) : A(0);
        break;
      case Kind::L2: v = std::sqrt(v); break;
      case Kind::LogSum: v = std::log(v); break;
      case Kind::LogSumExp: v = std::isfinite(maxima[i]) ? std::log(v) + maxima[i] : maxima[i]; break;
      default: break;
    }
    o[i] = static_cast<T>(v);
  }
  return out;
}

OpDef reduceOp(std::string type, Kind kind) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Reduction;
  d.infer = inferReduce;
  d.compute = [type, kind](const OpContext& ctx) {
    return std::vector<Tensor>{dispatchNumeric(ctx.dtype(0), type.c_str(), [&](auto tag) {
      using T = decltype(tag);
      if (!std::is_floating_point_v<T> && !integerFriendly(kind))
        ctx.fail(type + " does not support element type " + std::string(ir::dtypeName(ctx.dtype(0))));
      return reduceTyped<T>(ctx, kind);
    })};
  };
  // One operation per input element (two for the squared / exponentiated kinds).
  d.flops = [kind](const OpContext& ctx, std::span<const TensorType>) {
    const double n = elementsOf(ctx.type(0));
    const bool twice = kind == Kind::L2 || kind == Kind::SumSquare || kind == Kind::LogSumExp || kind == Kind::L1;
    return twice ? 2 * n : n;
  };
  return d;
}

// ---- ArgMax / ArgMin ----

Shape argShape(const Shape& in, int64_t axis, bool keepdims) {
  Shape out = in;
  if (keepdims) out[static_cast<size_t>(axis)] = 1;
  else out.erase(out.begin() + axis);
  return out;
}

OpDef argOp(std::string type, bool isMax) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Reduction;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(1, 1);
    const TensorType& x = ctx.type(0);
    const bool keepdims = ctx.attrs().getInt("keepdims", 1) != 0;
    if (!x.rankKnown) return std::vector<TensorType>{TensorType{DType::Int64, {}, false}};
    if (x.shape.empty()) ctx.fail("input must have rank >= 1");
    const int64_t axis = normalizeAxis(ctx.attrs().getInt("axis", 0), ctx.rank(0));
    return std::vector<TensorType>{TensorType{DType::Int64, argShape(x.shape, axis, keepdims), true}};
  };
  d.compute = [type, isMax](const OpContext& ctx) {
    ctx.expectInputs(1, 1);
    const Tensor& x = ctx.tensor(0);
    if (x.rank() == 0) ctx.fail("input must have rank >= 1");
    const int64_t axis = normalizeAxis(ctx.attrs().getInt("axis", 0), x.rank());
    const bool keepdims = ctx.attrs().getInt("keepdims", 1) != 0;
    const bool last = ctx.attrs().getInt("select_last_index", 0) != 0;
    const Shape& s = x.shape();
    const int64_t outer = product(s, 0, static_cast<size_t>(axis)), n = s[static_cast<size_t>(axis)],
                  inner = product(s, static_cast<size_t>(axis) + 1, s.size());
    if (n == 0 && outer * inner > 0) ctx.fail(type + " over an empty axis");
    Tensor out(DType::Int64, argShape(s, axis, keepdims));
    int64_t* o = out.data<int64_t>();
    dispatchNumeric(x.dtype(), type.c_str(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>();
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t i = 0; i < inner; ++i) {
          const T* p = in + a * n * inner + i;
          T best = p[0];
          int64_t at = 0;
          for (int64_t k = 1; k < n; ++k) {
            const T v = p[k * inner];
            const bool better = isMax ? v > best : v < best;
            if (better || (last && v == best)) {
              best = v;
              at = k;
            }
          }
          o[a * inner + i] = at;
        }
      return 0;
    });
    return std::vector<Tensor>{std::move(out)};
  };
  d.flops = [](const OpContext& ctx, std::span<const TensorType>) { return elementsOf(ctx.type(0)); };
  return d;
}

// ---- Softmax, LogSoftmax, Hardmax ----

// The input seen as [outer, n, inner], normalised over n. Before opset 13
// the input is coerced to 2-D at `axis` (default 1), so n spans every dim
// from axis on; from 13 n is the single dim `axis` (default -1).
struct Blocks {
  int64_t outer, n, inner;
};

int64_t softmaxAxis(const OpContext& ctx, int64_t rank) {
  const bool legacy = ctx.opset() < 13;
  const int64_t axis = ctx.attrs().getInt("axis", legacy ? 1 : -1);
  // The legacy 2-D coercion also accepts axis == rank (the [N, 1] view).
  if (legacy && (axis == rank)) return axis;
  return normalizeAxis(axis, rank);
}

Blocks softmaxBlocks(const OpContext& ctx, const Shape& s) {
  const int64_t r = static_cast<int64_t>(s.size());
  const size_t axis = static_cast<size_t>(softmaxAxis(ctx, r));
  if (ctx.opset() < 13) return {product(s, 0, axis), product(s, axis, s.size()), 1};
  return {product(s, 0, axis), s[axis], product(s, axis + 1, s.size())};
}

enum class Norm { Softmax, LogSoftmax, Hardmax };

template <class T>
void normalise(Norm kind, const T* in, T* out, const Blocks& b) {
  for (int64_t a = 0; a < b.outer; ++a)
    for (int64_t i = 0; i < b.inner; ++i) {
      const T* p = in + a * b.n * b.inner + i;
      T* q = out + a * b.n * b.inner + i;
      const int64_t st = b.inner;
      if (b.n == 0) continue;
      int64_t argmax = 0;
      for (int64_t k = 1; k < b.n; ++k)
        if (p[k * st] > p[argmax * st]) argmax = k;
      const T m = p[argmax * st];
      if (kind == Norm::Hardmax) {
        for (int64_t k = 0; k < b.n; ++k) q[k * st] = T(k == argmax ? 1 : 0);
        continue;
      }
      // Subtracting the maximum keeps exp in range.
      T sum = 0;
      for (int64_t k = 0; k < b.n; ++k) {
        const T e = std::exp(p[k * st] - m);
        if (kind == Norm::Softmax) q[k * st] = e;
        sum += e;
      }
      if (kind == Norm::Softmax) {
        for (int64_t k = 0; k < b.n; ++k) q[k * st] /= sum;
      } else {
        const T logSum = std::log(sum);
        for (int64_t k = 0; k < b.n; ++k) q[k * st] = p[k * st] - m - logSum;
      }
    }
}

OpDef normOp(std::string type, Norm kind) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Reduction;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(1, 1);
    const TensorType& x = ctx.type(0);
    if (x.rankKnown) softmaxAxis(ctx, ctx.rank(0));  // range check
    return std::vector<TensorType>{x};
  };
  d.compute = [type, kind](const OpContext& ctx) {
    ctx.expectInputs(1, 1);
    const Tensor& x = ctx.tensor(0);
    const Blocks b = softmaxBlocks(ctx, x.shape());
    return std::vector<Tensor>{dispatchNumeric(x.dtype(), type.c_str(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_floating_point_v<T>) {
        ctx.fail(type + " does not support element type " + std::string(ir::dtypeName(x.dtype())));
        return Tensor{};
      } else {
        Tensor out(x.dtype(), x.shape());
        normalise<T>(kind, x.data<T>(), out.data<T>(), b);
        return out;
      }
    })};
  };
  // max, subtract, exp, sum, divide: about five operations per element.
  d.flops = [kind](const OpContext& ctx, std::span<const TensorType>) {
    return elementsOf(ctx.type(0)) * (kind == Norm::Hardmax ? 1.0 : 5.0);
  };
  return d;
}

}  // namespace

void registerReduceOps(OpRegistry& r) {
  r.add(reduceOp("ReduceSum", Kind::Sum));
  r.add(reduceOp("ReduceMean", Kind::Mean));
  r.add(reduceOp("ReduceMax", Kind::Max));
  r.add(reduceOp("ReduceMin", Kind::Min));
  r.add(reduceOp("ReduceProd", Kind::Prod));
  r.add(reduceOp("ReduceL1", Kind::L1));
  r.add(reduceOp("ReduceL2", Kind::L2));
  r.add(reduceOp("ReduceSumSquare", Kind::SumSquare));
  r.add(reduceOp("ReduceLogSum", Kind::LogSum));
  r.add(reduceOp("ReduceLogSumExp", Kind::LogSumExp));
  r.add(argOp("ArgMax", true));
  r.add(argOp("ArgMin", false));
  r.add(normOp("Softmax", Norm::Softmax));
  r.add(normOp("LogSoftmax", Norm::LogSoftmax));
  r.add(normOp("Hardmax", Norm::Hardmax));
}

}  // namespace rammer::ops
