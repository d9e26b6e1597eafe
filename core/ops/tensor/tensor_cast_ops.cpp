// Cast between every numeric dtype (bool and float16 included), and to and
// from strings.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/ops/tensor/tensor_families.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops::tensor {

namespace {

// Element kinds whose storage differs from their value type.
struct Half {};      // stored as uint16_t bits, computed as float
struct BoolElem {};  // stored as one byte, any non-zero byte is true

template <class T> struct Elem { using Storage = T; using Value = T; };
template <> struct Elem<Half> { using Storage = uint16_t; using Value = float; };
template <> struct Elem<BoolElem> { using Storage = uint8_t; using Value = bool; };

template <class T>
typename Elem<T>::Value load(const std::byte* base, int64_t i) {
  typename Elem<T>::Storage s;
  std::memcpy(&s, base + static_cast<size_t>(i) * sizeof(s), sizeof(s));
  if constexpr (std::is_same_v<T, Half>) return ir::halfToFloat(s);
  else if constexpr (std::is_same_v<T, BoolElem>) return s != 0;
  else return s;
}

template <class T>
void store(std::byte* base, int64_t i, typename Elem<T>::Value v) {
  typename Elem<T>::Storage s;
  if constexpr (std::is_same_v<T, Half>) s = ir::floatToHalf(v);
  else if constexpr (std::is_same_v<T, BoolElem>) s = v ? 1 : 0;
  else s = v;
  std::memcpy(base + static_cast<size_t>(i) * sizeof(s), &s, sizeof(s));
}

// Floating -> integer. ONNX leaves out-of-range values undefined; C++ would
// too, so saturate (negative values into unsigned types wrap like a cast
// through int64, which is what common hardware does for -1.0 -> 255).
template <class U>
U floatToInt(double v) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(v);
  constexpr double kTwo63 = 9223372036854775808.0;
  if constexpr (std::is_signed_v<U>) {
    constexpr double lo = static_cast<double>(std::numeric_limits<U>::min());  // exact: a power of two
    if (t < lo) return std::numeric_limits<U>::min();
    if (t >= -lo) return std::numeric_limits<U>::max();
    return static_cast<U>(t);
  } else {
    constexpr double hi = static_cast<double>(std::numeric_limits<U>::max()) + 1.0;  // 2^bits, exact
    if (t >= hi) return std::numeric_limits<U>::max();
    if (t >= 0) return static_cast<U>(t);
    if (t < -kTwo63) return static_cast<U>(std::numeric_limits<int64_t>::min());
    return static_cast<U>(static_cast<int64_t>(t));
  }
}

template <class To, class V>
typename Elem<To>::Value convert(V v) {
  using Out = typename Elem<To>::Value;
  if constexpr (std::is_same_v<Out, bool>) return v != V(0);
  else if constexpr (std::is_floating_point_v<Out>) return static_cast<Out>(v);
  else if constexpr (std::is_floating_point_v<V>) return floatToInt<Out>(static_cast<double>(v));
  else return static_cast<Out>(v);  // integer narrowing is modular (C++20)
}

// Calls fn(T{}) with the element kind of a numeric dtype.
template <class Fn>
void dispatch(const OpContext& ctx, ir::DType t, Fn&& fn) {
  switch (t) {
    case ir::DType::Float32: fn(float{}); break;
    case ir::DType::Float64: fn(double{}); break;
    case ir::DType::Float16: fn(Half{}); break;
    case ir::DType::Int8: fn(int8_t{}); break;
    case ir::DType::Int16: fn(int16_t{}); break;
    case ir::DType::Int32: fn(int32_t{}); break;
    case ir::DType::Int64: fn(int64_t{}); break;
    case ir::DType::UInt8: fn(uint8_t{}); break;
    case ir::DType::UInt16: fn(uint16_t{}); break;
    case ir::DType::UInt32: fn(uint32_t{}); break;
    case ir::DType::UInt64: fn(uint64_t{}); break;
    case ir::DType::Bool: fn(BoolElem{}); break;
    default: ctx.fail("cannot cast " + std::string(ir::dtypeName(t)));
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return s;
}

template <class V>
std::string toText(V v) {
  if constexpr (std::is_same_v<V, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_floating_point_v<V>) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), v);  // shortest round-trip text
    return std::string(buf, res.ptr);
  } else {
    return std::to_string(v);
  }
}

// Parses a number as the Cast spec describes (plain or scientific notation,
// "INF", "+INF", "-INF", "NaN" in any case), then converts it to `To`.
template <class To>
typename Elem<To>::Value fromText(const OpContext& ctx, const std::string& text) {
  using Out = typename Elem<To>::Value;
  const std::string l = lower(text);
  if (l == "nan") return convert<To>(std::numeric_limits<double>::quiet_NaN());
  if (l == "inf" || l == "+inf") return convert<To>(std::numeric_limits<double>::infinity());
  if (l == "-inf") return convert<To>(-std::numeric_limits<double>::infinity());
  const char* first = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  const char* last = text.data() + text.size();
  if constexpr (std::is_integral_v<Out> && !std::is_same_v<Out, bool>) {
    // Integers first so that large int64 values keep every digit.
    Out i{};
    auto res = std::from_chars(first, last, i);
    if (res.ec == std::errc() && res.ptr == last) return i;
  }
  double d = 0;
  auto res = std::from_chars(first, last, d);
  if (res.ec != std::errc() || res.ptr != last || first == last)
    ctx.fail("cannot cast the string '" + text + "' to a number");
  return convert<To>(d);
}

ir::DType castTarget(const OpContext& ctx) {
  if (!ctx.attrs().has("to")) ctx.fail("missing the 'to' attribute");
  const int64_t to = ctx.attrs().getInt("to", 0);
  auto dt = ir::dtypeFromOnnx(static_cast<int32_t>(std::clamp<int64_t>(to, -1, 1000)));
  if (!dt || *dt == ir::DType::Undefined) ctx.fail("unsupported target type " + std::to_string(to));
  return *dt;
}

std::vector<ir::Tensor> computeCast(const OpContext& ctx) {
  const ir::Tensor& in = ctx.tensor(0);
  const ir::DType to = castTarget(ctx);
  if (in.dtype() == to) return {in};
  ir::Tensor out = makeTensor(ctx, to, in.shape());
  const int64_t n = in.numel();
  if (in.dtype() == ir::DType::String) {
    const auto& s = in.strings();
    dispatch(ctx, to, [&]<class To>(To) {
      for (int64_t i = 0; i < n; ++i) store<To>(out.raw(), i, fromText<To>(ctx, s[static_cast<size_t>(i)]));
    });
    return {std::move(out)};
  }
  if (to == ir::DType::String) {
    auto& s = out.strings();
    dispatch(ctx, in.dtype(), [&]<class From>(From) {
      for (int64_t i = 0; i < n; ++i) s[static_cast<size_t>(i)] = toText(load<From>(in.raw(), i));
    });
    return {std::move(out)};
  }
  dispatch(ctx, in.dtype(), [&]<class From>(From) {
    dispatch(ctx, to, [&]<class To>(To) {
      for (int64_t i = 0; i < n; ++i) store<To>(out.raw(), i, convert<To>(load<From>(in.raw(), i)));
    });
  });
  return {std::move(out)};
}

}  // namespace

void registerCastOps(OpRegistry& r) {
  r.add(defineOp("Cast", OpCategory::Elementwise,
                 [](const OpContext& ctx) {
                   const ir::TensorType& in = ctx.type(0);
                   return ir::TensorType{castTarget(ctx), in.shape, in.rankKnown};
                 },
                 computeCast));
}

}  // namespace rammer::ops::tensor
