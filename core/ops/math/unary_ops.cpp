// One-input math functions and activations (plus PRelu's slope and Clip's
// bounds). Each op is a per-element functor run over a plain loop.
#include <algorithm>
#include <cmath>
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


template <class T, class F>
Tensor mapElements(const Tensor& x, F f) {
  Tensor out(x.dtype(), x.shape());
  const T* in = x.data<T>();
  T* o = out.data<T>();
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
  return out;
}

// Element types an op accepts: floats only, or integers as well.
enum class Types { Float, Numeric };

// A one-input op with the input's type. make.template operator()<T>(ctx)
// returns the T -> T functor (attributes are read once, not per element).
template <Types types, class Make>
OpDef unary(std::string type, OpCategory category, Make make) {
  OpDef d;
  d.type = type;
  d.category = category;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(1, 1);
    return std::vector<TensorType>{ctx.type(0)};
  };
  d.compute = [type, make](const OpContext& ctx) {
    ctx.expectInputs(1, 1);
    return std::vector<Tensor>{dispatchNumeric(ctx.dtype(0), type.c_str(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (types == Types::Float && !std::is_floating_point_v<T>) {
        ctx.fail(type + " does not support element type " + std::string(ir::dtypeName(ctx.dtype(0))));
        return Tensor{};
      } else {
        return mapElements<T>(ctx.tensor(0), make.template operator()<T>(ctx));
      }
    })};
  };
  d.flops = [](const OpContext&, std::span<const TensorType> outs) { return outputElements(outs); };
  return d;
}

// Wraps a generic lambda taking (T x) with no attributes into a factory.
template <class F>
struct Plain {
  F f;
  template <class T>
  auto operator()(const OpContext&) const {
    return [f = f](T x) -> T { return f(x); };
  }
};
template <class F>
Plain<F> plain(F f) { return Plain<F>{f}; }

// Integer negation without signed-overflow UB (min wraps to min).
template <class T>
T negate(T x) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(x));
  else return -x;
}

template <class T>
T sigmoid(T x) {
  // Split on the sign so exp never overflows.
  if (x >= 0) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

// ---- activations with attributes ----

struct MakeLeakyRelu {
  template <class T>
  auto operator()(const OpContext& ctx) const {
    const T alpha = static_cast<T>(ctx.attrs().getFloat("alpha", 0.01f));
    return [alpha](T x) { return x < 0 ? alpha * x : x; };
  }
};

struct MakeElu {
  template <class T>
  auto operator()(const OpContext& ctx) const {
    const T alpha = static_cast<T>(ctx.attrs().getFloat("alpha", 1.0f));
    return [alpha](T x) { return x < 0 ? alpha * std::expm1(x) : x; };
  }
};

struct MakeCelu {
  template <class T>
  auto operator()(const OpContext& ctx) const {
    const T alpha = static_cast<T>(ctx.attrs().getFloat("alpha", 1.0f));
    if (alpha == 0) ctx.fail("Celu alpha must not be 0");
    return [alpha](T x) { return x < 0 ? alpha * std::expm1(x / alpha) : x; };
  }
};

struct MakeSelu {
  template <class T>
  auto operator()(const OpContext& ctx) const {
    const T alpha = static_cast<T>(ctx.attrs().getFloat("alpha", 1.67326319217681884765625f));
    const T gamma = static_cast<T>(ctx.attrs().getFloat("gamma", 1.05070102214813232421875f));
    return [alpha, gamma](T x) { return x <= 0 ? gamma * alpha * std::expm1(x) : gamma * x; };
  }
};

struct MakeHardSigmoid {
  template <class T>
  auto operator()(const OpContext& ctx) const {
    const T alpha = static_cast<T>(ctx.attrs().getFloat("alpha", 0.2f));
    const T beta = static_cast<T>(ctx.attrs().getFloat("beta", 0.5f));
    return [alpha, beta](T x) { return std::clamp(alpha * x + beta, T(0), T(1)); };
  }
};

struct MakeThresholdedRelu {
  template <class T>
  auto operator()(const OpContext& ctx) const {
    const T alpha = static_cast<T>(ctx.attrs().getFloat("alpha", 1.0f));
    return [alpha](T x) { return x > alpha ? x : T(0); };
  }
};

struct MakeShrink {
  template <class T>
  auto operator()(const OpContext& ctx) const {
    const T lambd = static_cast<T>(ctx.attrs().getFloat("lambd", 0.5f));
    const T bias = static_cast<T>(ctx.attrs().getFloat("bias", 0.0f));
    return [lambd, bias](T x) { return x < -lambd ? x + bias : x > lambd ? x - bias : T(0); };
  }
};

// ---- PRelu: y = x < 0 ? slope * x : x, slope broadcast to X ----

// Shape the slope is broadcast with. Before opset 7 a 1-D slope holds one
// value per channel (dim 1 of X), which numpy alignment would put on the
// last dim instead.
Shape slopeShape(const OpContext& ctx, const Shape& x, const Shape& slope) {
  if (ctx.opset() < 7 && slope.size() == 1 && x.size() >= 2 && (slope[0] == x[1] || x[1] < 0 || slope[0] < 0)) {
    Shape s(x.size() - 1, 1);
    s[0] = slope[0];
    return s;
  }
  return slope;
}

OpDef preluOp() {
  OpDef d;
  d.type = "PRelu";
  d.category = OpCategory::Activation;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    const TensorType& x = ctx.type(0);
    const TensorType& slope = ctx.type(1);
    if (slope.dtype != x.dtype) ctx.fail("slope has type " + std::string(ir::dtypeName(slope.dtype)) + ", expected " +
                                         std::string(ir::dtypeName(x.dtype)));
    if (x.rankKnown && slope.rankKnown) checkUnidirectional(slopeShape(ctx, x.shape, slope.shape), x.shape, "slope");
    return std::vector<TensorType>{x};
  };
  d.compute = [](const OpContext& ctx) {
    ctx.expectInputs(2, 2);
    const Tensor& x = ctx.tensor(0);
    const Tensor& slope = ctx.tensor(1);
    if (slope.dtype() != x.dtype()) ctx.fail("slope and X of PRelu must have the same type");
    const Shape s = slopeShape(ctx, x.shape(), slope.shape());
    checkUnidirectional(s, x.shape(), "slope");
    return std::vector<Tensor>{dispatchNumeric(x.dtype(), "PRelu", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_floating_point_v<T>) {
        ctx.fail("PRelu does not support element type " + std::string(ir::dtypeName(x.dtype())));
        return Tensor{};
      } else {
        BroadcastPlan plan(x.shape(), s);
        Tensor out(x.dtype(), x.shape());
        broadcastBinary(plan, x.data<T>(), slope.data<T>(), out.data<T>(), [](T v, T a) { return v < 0 ? a * v : v; });
        return out;
      }
    })};
  };
  d.flops = [](const OpContext&, std::span<const TensorType> outs) { return outputElements(outs); };
  return d;
}

// ---- Clip: bounds are attributes before opset 11, optional inputs after ----

template <class T>
T clipBound(const OpContext& ctx, size_t input, const char* attr, T def) {
  if (ctx.opset() < 11) {
    if (!ctx.attrs().has(attr)) return def;
    const float v = ctx.attrs().getFloat(attr, 0.0f);
    if constexpr (std::is_integral_v<T>) {  // only reachable with a malformed model; avoid an out-of-range cast
      if (!(v >= static_cast<float>(std::numeric_limits<T>::lowest()) && v < static_cast<float>(std::numeric_limits<T>::max())))
        return def;
    }
    return static_cast<T>(v);
  }
  if (!ctx.has(input)) return def;
  const Tensor& b = ctx.tensor(input);
  if (b.dtype() != ctx.dtype(0)) ctx.fail(std::string(attr) + " has another element type than the input");
  if (b.numel() != 1) ctx.fail(std::string(attr) + " must be a scalar, got shape " + ir::shapeToString(b.shape()));
  return b.data<T>()[0];
}

OpDef clipOp() {
  OpDef d;
  d.type = "Clip";
  d.category = OpCategory::Activation;
  d.infer = [](const OpContext& ctx) {
    ctx.expectInputs(1, ctx.opset() < 11 ? 1 : 3);
    for (size_t i = 1; i < 3; ++i)
      if (ctx.has(i) && ctx.dtype(i) != ctx.dtype(0))
        ctx.fail("input " + std::to_string(i) + " of Clip must have the input's type");
    return std::vector<TensorType>{ctx.type(0)};
  };
  d.compute = [](const OpContext& ctx) {
    ctx.expectInputs(1, ctx.opset() < 11 ? 1 : 3);
    return std::vector<Tensor>{dispatchNumeric(ctx.dtype(0), "Clip", [&](auto tag) {
      using T = decltype(tag);
      using L = std::numeric_limits<T>;
      const T lo = clipBound<T>(ctx, 1, "min", L::has_infinity ? -L::infinity() : L::lowest());
      const T hi = clipBound<T>(ctx, 2, "max", L::has_infinity ? L::infinity() : L::max());
      // min after max: when lo > hi every value becomes hi, as ONNX specifies.
      return mapElements<T>(ctx.tensor(0), [lo, hi](T x) { return std::min(std::max(x, lo), hi); });
    })};
  };
  d.flops = [](const OpContext&, std::span<const TensorType> outs) { return outputElements(outs); };
  return d;
}

}  // namespace

void registerUnaryOps(OpRegistry& r) {
  constexpr auto F = Types::Float;
  constexpr auto N = Types::Numeric;
  constexpr auto E = OpCategory::Elementwise;
  constexpr auto A = OpCategory::Activation;

  // Math.
  r.add(unary<F>("Sqrt", E, plain([](auto x) { return std::sqrt(x); })));
  r.add(unary<F>("Exp", E, plain([](auto x) { return std::exp(x); })));
  r.add(unary<F>("Log", E, plain([](auto x) { return std::log(x); })));
  r.add(unary<N>("Neg", E, plain([](auto x) { return negate(x); })));
  r.add(unary<N>("Abs", E, plain([](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return std::abs(x);  // also clears -0's sign
    else return x < 0 ? negate(x) : x;
  })));
  r.add(unary<F>("Reciprocal", E, plain([](auto x) { return decltype(x)(1) / x; })));
  r.add(unary<F>("Floor", E, plain([](auto x) { return std::floor(x); })));
  r.add(unary<F>("Ceil", E, plain([](auto x) { return std::ceil(x); })));
  // Halves go to the even neighbour (the default rounding mode), as ONNX says.
  r.add(unary<F>("Round", E, plain([](auto x) { return std::nearbyint(x); })));
  r.add(unary<F>("Erf", E, plain([](auto x) { return std::erf(x); })));
  r.add(unary<N>("Sign", E, plain([](auto x) {
    using T = decltype(x);
    return x > 0 ? T(1) : x < 0 ? T(-1) : x;  // keeps 0 and NaN
  })));
  r.add(unary<F>("Sin", E, plain([](auto x) { return std::sin(x); })));
  r.add(unary<F>("Cos", E, plain([](auto x) { return std::cos(x); })));
  r.add(unary<F>("Tan", E, plain([](auto x) { return std::tan(x); })));
  r.add(unary<F>("Asin", E, plain([](auto x) { return std::asin(x); })));
  r.add(unary<F>("Acos", E, plain([](auto x) { return std::acos(x); })));
  r.add(unary<F>("Atan", E, plain([](auto x) { return std::atan(x); })));
  r.add(unary<F>("Sinh", E, plain([](auto x) { return std::sinh(x); })));
  r.add(unary<F>("Cosh", E, plain([](auto x) { return std::cosh(x); })));
  r.add(unary<F>("Asinh", E, plain([](auto x) { return std::asinh(x); })));
  r.add(unary<F>("Acosh", E, plain([](auto x) { return std::acosh(x); })));
  r.add(unary<F>("Atanh", E, plain([](auto x) { return std::atanh(x); })));

  // Activations.
  r.add(unary<N>("Relu", A, plain([](auto x) { return x < 0 ? decltype(x)(0) : x; })));
  r.add(unary<F>("LeakyRelu", A, MakeLeakyRelu{}));
  r.add(preluOp());
  r.add(unary<F>("Elu", A, MakeElu{}));
  r.add(unary<F>("Celu", A, MakeCelu{}));
  r.add(unary<F>("Selu", A, MakeSelu{}));
  r.add(unary<F>("Sigmoid", A, plain([](auto x) { return sigmoid(x); })));
  r.add(unary<F>("HardSigmoid", A, MakeHardSigmoid{}));
  r.add(unary<F>("HardSwish", A, plain([](auto x) {
    using T = decltype(x);
    return x * std::clamp(x / T(6) + T(0.5), T(0), T(1));
  })));
  r.add(unary<F>("Tanh", A, plain([](auto x) { return std::tanh(x); })));
  // log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|).
  r.add(unary<F>("Softplus", A, plain([](auto x) {
    using T = decltype(x);
    return std::max(x, T(0)) + std::log1p(std::exp(-std::abs(x)));
  })));
  r.add(unary<F>("Softsign", A, plain([](auto x) { return x / (decltype(x)(1) + std::abs(x)); })));
  r.add(unary<F>("ThresholdedRelu", A, MakeThresholdedRelu{}));
  r.add(clipOp());
  r.add(unary<F>("Shrink", A, MakeShrink{}));
}

}  // namespace rammer::ops
