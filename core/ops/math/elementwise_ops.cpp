// Binary and variadic elementwise math, comparisons, logic and Where, all
// with numpy broadcasting (opset >= 7) or the legacy `broadcast`/`axis`
// attributes of opset 6.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

#include "core/ops/broadcast.h"
#include "core/ops/op_registry.h"

namespace rammer::ops {
namespace {

using ir::DType;
using ir::Shape;
using ir::Tensor;
using ir::TensorType;


// Shape the kernels use for input i. Opset < 7 binary ops broadcast only
// when the `broadcast` attribute is 1, B against A, optionally placed at
// dims [axis, axis + rank(B)) of A instead of right-aligned.
Shape operandShape(const OpContext& ctx, size_t i, const Shape& a, const Shape& s) {
  if (i != 1 || ctx.opset() >= 7 || ctx.attrs().getInt("broadcast", 0) != 1) return s;
  const int64_t ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(s.size());
  int64_t axis = ra - rb;  // right-aligned unless `axis` says otherwise
  if (ctx.attrs().has("axis")) {
    axis = ctx.attrs().getInt("axis", 0);
    if (axis < 0) axis += ra;
  }
  bool ok = axis >= 0 && axis + rb <= ra;
  for (int64_t j = 0; ok && j < rb; ++j) {
    const int64_t db = s[static_cast<size_t>(j)], da = a[static_cast<size_t>(axis + j)];
    ok = db == 1 || db < 0 || da < 0 || db == da;
  }
  if (!ok)
    ctx.fail("legacy broadcast (axis " + std::to_string(axis) + ") of input B of shape " + ir::shapeToString(s) +
             " does not fit input A of shape " + ir::shapeToString(a));
  Shape aligned(static_cast<size_t>(axis), 1);
  aligned.insert(aligned.end(), s.begin(), s.end());
  aligned.resize(static_cast<size_t>(ra), 1);
  return aligned;
}

// Output type of an op broadcasting inputs [0, n); `sameType` requires all
// of them to share input 0's element type.
TensorType inferBroadcast(const OpContext& ctx, size_t first, size_t n, DType result, bool sameType) {
  std::vector<TensorType> types;
  for (size_t i = first; i < first + n; ++i) {
    TensorType t = ctx.type(i);
    if (sameType && t.dtype != ctx.dtype(first))
      ctx.fail("input " + std::to_string(i) + " has type " + std::string(ir::dtypeName(t.dtype)) + ", expected " +
               std::string(ir::dtypeName(ctx.dtype(first))) + " like input " + std::to_string(first));
    if (t.rankKnown && ctx.type(0).rankKnown) t.shape = operandShape(ctx, i, ctx.shape(0), t.shape);
    types.push_back(std::move(t));
  }
  return broadcastTypes(types, result);
}

// ---- integer-safe arithmetic (signed overflow wraps instead of being UB) ----

template <class T>
T addWrap(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else return a + b;
}
template <class T>
T subWrap(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(std::make_unsigned_t<T>(a) - std::make_unsigned_t<T>(b));
  else return a - b;
}
template <class T>
T mulWrap(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(std::make_unsigned_t<T>(a) * std::make_unsigned_t<T>(b));
  else return a * b;
}

// C-style truncating division; min / -1 wraps to min.
template <class T>
T divide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) throw OpError("integer division by zero");
    if (b == -1) return subWrap<T>(0, a);
    return a / b;
  } else {
    return a / b;
  }
}

// Out-of-range doubles saturate and NaN becomes 0, instead of UB.
template <class T>
T saturateCast(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return 0;
    constexpr double hi = -static_cast<double>(std::numeric_limits<T>::min());  // 2^(bits-1), exact
    if (v >= hi) return std::numeric_limits<T>::max();
    if (v < -hi) return std::numeric_limits<T>::min();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

// Integer base raised to an integer exponent, wrapping like repeated
// multiplication; negative exponents truncate 1/base^-e toward zero.
template <class T, class E>
T intPow(T base, E e) {
  if (e < 0) {
    if (base == 1) return 1;
    if (base == -1) return (e % 2 == 0) ? 1 : -1;
    if (base == 0) throw OpError("Pow: zero raised to a negative integer power");
    return 0;
  }
  T result = 1;
  while (e > 0) {
    if (e & 1) result = mulWrap(result, base);
    base = mulWrap(base, base);
    e >>= 1;
  }
  return result;
}

template <class T, class E>
T power(T a, E b) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(std::pow(a, static_cast<T>(b)));
  else if constexpr (std::is_integral_v<E>) return intPow<T, int64_t>(a, static_cast<int64_t>(b));
  else return saturateCast<T>(std::pow(static_cast<double>(a), static_cast<double>(b)));
}

// NaN-propagating max/min (numpy's maximum/minimum).
template <class T>
T maxOf(T a, T b) { return (a > b || a != a) ? a : b; }
template <class T>
T minOf(T a, T b) { return (a < b || a != a) ? a : b; }

// ---- kernels ----

template <class R, class A, class B, class Op>
Tensor broadcast2(const OpContext& ctx, const Tensor& a, const Tensor& b, Op op) {
  BroadcastPlan plan(a.shape(), operandShape(ctx, 1, a.shape(), b.shape()));
  Tensor out(ir::dtypeOf<R>(), plan.outShape());
  broadcastBinary(plan, a.data<A>(), b.data<B>(), out.data<R>(), op);
  return out;
}

void expectSameType(const OpContext& ctx, size_t i) {
  if (ctx.dtype(i) != ctx.dtype(0))
    ctx.fail("input " + std::to_string(i) + " has type " + std::string(ir::dtypeName(ctx.dtype(i))) +
             ", expected " + std::string(ir::dtypeName(ctx.dtype(0))) + " like input 0");
}

// A two-input op whose result has the input type. MakeOp<T>() returns the
// functor for element type T.
template <class MakeOp>
OpDef arithmetic(std::string type, MakeOp makeOp) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Elementwise;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    return std::vector<TensorType>{inferBroadcast(ctx, 0, 2, ctx.dtype(0), true)};
  };
  d.compute = [type, makeOp](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    expectSameType(ctx, 1);
    return std::vector<Tensor>{dispatchNumeric(ctx.dtype(0), type.c_str(), [&](auto tag) {
      using T = decltype(tag);
      return broadcast2<T, T, T>(ctx, ctx.tensor(0), ctx.tensor(1), makeOp.template operator()<T>(ctx));
    })};
  };
  d.flops = [](const OpContext&, std::span<const TensorType> outs) { return outputElements(outs); };
  return d;
}

// A two-input op with a bool result (comparisons, logic).
template <bool WithBool, class MakeOp>
OpDef predicate(std::string type, MakeOp makeOp) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Elementwise;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    return std::vector<TensorType>{inferBroadcast(ctx, 0, 2, DType::Bool, true)};
  };
  d.compute = [type, makeOp](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    expectSameType(ctx, 1);
    return std::vector<Tensor>{dispatchNumeric<WithBool>(ctx.dtype(0), type.c_str(), [&](auto tag) {
      using T = decltype(tag);
      return broadcast2<bool, T, T>(ctx, ctx.tensor(0), ctx.tensor(1), makeOp.template operator()<T>());
    })};
  };
  d.flops = [](const OpContext&, std::span<const TensorType> outs) { return outputElements(outs); };
  return d;
}

// Max, Min, Sum, Mean: any number of inputs, folded pairwise left to right.
enum class Fold { Max, Min, Sum, Mean };

OpDef variadic(std::string type, Fold fold) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Elementwise;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(1, std::numeric_limits<size_t>::max());
    return std::vector<TensorType>{inferBroadcast(ctx, 0, ctx.numInputs(), ctx.dtype(0), true)};
  };
  d.compute = [type, fold](const OpContext& ctx) {
    ctx.expectInputs(1, std::numeric_limits<size_t>::max());
    const size_t n = ctx.numInputs();
    for (size_t i = 1; i < n; ++i) expectSameType(ctx, i);
    return std::vector<Tensor>{dispatchNumeric(ctx.dtype(0), type.c_str(), [&](auto tag) {
      using T = decltype(tag);
      Tensor acc = ctx.tensor(0);
      for (size_t i = 1; i < n; ++i) {
        const Tensor& x = ctx.tensor(i);
        switch (fold) {
          case Fold::Max: acc = broadcast2<T, T, T>(ctx, acc, x, [](T a, T b) { return maxOf(a, b); }); break;
          case Fold::Min: acc = broadcast2<T, T, T>(ctx, acc, x, [](T a, T b) { return minOf(a, b); }); break;
          case Fold::Sum:
          case Fold::Mean: acc = broadcast2<T, T, T>(ctx, acc, x, [](T a, T b) { return addWrap(a, b); }); break;
        }
      }
      if (fold == Fold::Mean)
        for (T& v : acc.template values<T>()) v = divide<T>(v, static_cast<T>(n));
      return acc;
    })};
  };
  d.flops = [fold](const OpContext& ctx, std::span<const TensorType> outs) {
    const double steps = static_cast<double>(ctx.numInputs()) - (fold == Fold::Mean ? 0.0 : 1.0);
    return outputElements(outs) * std::max(steps, 0.0);
  };
  return d;
}

OpDef powOp() {
  OpDef d;
  d.type = "Pow";
  d.category = OpCategory::Elementwise;
  // The exponent may have another element type (opset 12); the result has the base's.
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    return std::vector<TensorType>{inferBroadcast(ctx, 0, 2, ctx.dtype(0), false)};
  };
  d.compute = [](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    return std::vector<Tensor>{dispatchNumeric(ctx.dtype(0), "Pow", [&](auto base) {
      using T = decltype(base);
      return dispatchNumeric(ctx.dtype(1), "Pow", [&](auto exponent) {
        using E = decltype(exponent);
        return broadcast2<T, T, E>(ctx, ctx.tensor(0), ctx.tensor(1), [](T a, E b) { return power(a, b); });
      });
    })};
  };
  d.flops = [](const OpContext&, std::span<const TensorType> outs) { return outputElements(outs); };
  return d;
}

OpDef notOp() {
  OpDef d;
  d.type = "Not";
  d.category = OpCategory::Elementwise;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(1, 1);
    return std::vector<TensorType>{ctx.type(0)};
  };
  d.compute = [](const OpContext& ctx) {
    ctx.expectInputs(1, 1);
    ctx.expectDType(0, {DType::Bool});
    Tensor out = ctx.tensor(0);
    for (bool& v : out.values<bool>()) v = !v;
    return std::vector<Tensor>{std::move(out)};
  };
  d.flops = [](const OpContext&, std::span<const TensorType> outs) { return outputElements(outs); };
  return d;
}

OpDef whereOp() {
  OpDef d;
  d.type = "Where";
  d.category = OpCategory::Elementwise;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(3, 3);
    if (ctx.dtype(0) != DType::Bool) ctx.fail("condition must be bool, got " + std::string(ir::dtypeName(ctx.dtype(0))));
    const TensorType c = ctx.type(0);
    const TensorType xy = inferBroadcast(ctx, 1, 2, ctx.dtype(1), true);
    const TensorType both[2] = {c, xy};
    return std::vector<TensorType>{broadcastTypes(both, ctx.dtype(1))};
  };
  d.compute = [](const OpContext& ctx) {
    ctx.expectInputs(3, 3);
    ctx.expectDType(0, {DType::Bool});
    if (ctx.dtype(2) != ctx.dtype(1)) ctx.fail("inputs X and Y of Where must have the same type");
    return std::vector<Tensor>{dispatchNumeric<true>(ctx.dtype(1), "Where", [&](auto tag) {
      using T = decltype(tag);
      const Shape shapes[3] = {ctx.tensor(0).shape(), ctx.tensor(1).shape(), ctx.tensor(2).shape()};
      BroadcastPlan plan(shapes);
      Tensor out(ir::dtypeOf<T>(), plan.outShape());
      broadcastTernary(plan, ctx.tensor(0).data<bool>(), ctx.tensor(1).data<T>(), ctx.tensor(2).data<T>(),
                       out.data<T>(), [](bool c, T x, T y) { return c ? x : y; });
      return out;
    })};
  };
  d.flops = [](const OpContext&, std::span<const TensorType> outs) { return outputElements(outs); };
  return d;
}

// Functor factories: a template call operator picks the element type.
// Lambdas rather than function pointers so the loops inline them.
struct MakeAdd { template <class T> auto operator()(const OpContext&) const { return [](T a, T b) { return addWrap(a, b); }; } };
struct MakeSub { template <class T> auto operator()(const OpContext&) const { return [](T a, T b) { return subWrap(a, b); }; } };
struct MakeMul { template <class T> auto operator()(const OpContext&) const { return [](T a, T b) { return mulWrap(a, b); }; } };
struct MakeDiv { template <class T> auto operator()(const OpContext&) const { return [](T a, T b) { return divide(a, b); }; } };

// Mod: fmod=1 takes the dividend's sign (C fmod / %), fmod=0 the divisor's
// (Python %, integers only as ONNX requires).
struct MakeMod {
  template <class T>
  auto operator()(const OpContext& ctx) const {
    const bool cStyle = ctx.attrs().getInt("fmod", 0) != 0;
    if (std::is_floating_point_v<T> && !cStyle) ctx.fail("Mod on floating-point inputs requires fmod=1");
    return [cStyle](T a, T b) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        return std::fmod(a, b);
      } else {
        if (b == 0) throw OpError("integer modulo by zero");
        if (b == -1) return 0;  // also avoids min % -1 overflow
        T r = a % b;
        if (!cStyle && r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
      }
    };
  }
};

template <template <class> class Cmp>
struct MakeCmp { template <class T> auto operator()() const { return [](T a, T b) { return Cmp<T>{}(a, b); }; } };

// And, Or, Xor: bool inputs only.
template <class Op>
OpDef logical(std::string type, Op op) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Elementwise;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    return std::vector<TensorType>{inferBroadcast(ctx, 0, 2, DType::Bool, true)};
  };
  d.compute = [op](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    ctx.expectDType(0, {DType::Bool});
    ctx.expectDType(1, {DType::Bool});
    return std::vector<Tensor>{broadcast2<bool, bool, bool>(ctx, ctx.tensor(0), ctx.tensor(1), op)};
  };
  d.flops = [](const OpContext&, std::span<const TensorType> outs) { return outputElements(outs); };
  return d;
}

}  // namespace

void registerElementwiseOps(OpRegistry& r) {
  r.add(arithmetic("Add", MakeAdd{}));
  r.add(arithmetic("Sub", MakeSub{}));
  r.add(arithmetic("Mul", MakeMul{}));
  r.add(arithmetic("Div", MakeDiv{}));
  r.add(arithmetic("Mod", MakeMod{}));
  r.add(powOp());
  r.add(variadic("Max", Fold::Max));
  r.add(variadic("Min", Fold::Min));
  r.add(variadic("Sum", Fold::Sum));
  r.add(variadic("Mean", Fold::Mean));
  r.add(predicate<true>("Equal", MakeCmp<std::equal_to>{}));
  r.add(predicate<false>("Less", MakeCmp<std::less>{}));
  r.add(predicate<false>("Greater", MakeCmp<std::greater>{}));
  r.add(predicate<false>("LessOrEqual", MakeCmp<std::less_equal>{}));
  r.add(predicate<false>("GreaterOrEqual", MakeCmp<std::greater_equal>{}));
  r.add(logical("And", [](bool a, bool b) { return a && b; }));
  r.add(logical("Or", [](bool a, bool b) { return a || b; }));
  r.add(logical("Xor", [](bool a, bool b) { return a != b; }));
  r.add(notOp());
  r.add(whereOp());
}

}  // namespace rammer::ops
