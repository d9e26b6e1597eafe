// Normalization ops: BatchNormalization (inference), InstanceNormalization,
// LRN and LayerNormalization. Float32 and float64; statistics accumulate in
// double.
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <utility>

#include "core/ops/op_registry.h"

namespace rammer::ops {

namespace {

using ir::DType;

int64_t product(const ir::Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

// Elements of the first output; 0 when not known.
double outputNumel(std::span<const ir::TensorType> out) {
  if (out.empty() || !out[0].rankKnown) return 0.0;
  const int64_t n = ir::numElements(out[0].shape);
  return n >= 0 ? static_cast<double>(n) : 0.0;
}

// Inference accepts float16 models too (their shapes are useful); compute does not.
void expectFloatX(const OpContext& ctx) { ctx.expectDType(0, {DType::Float32, DType::Float64, DType::Float16}); }

// The element-type dispatch of a compute function over float / double.
template <template <class> class Kernel>
std::vector<ir::Tensor> dispatchFloat(const OpContext& ctx) {
  if (ctx.dtype(0) == DType::Float64) return Kernel<double>::run(ctx);
  if (ctx.dtype(0) == DType::Float32) return Kernel<float>::run(ctx);
  ctx.fail("X has type " + std::string(ir::dtypeName(ctx.dtype(0))) + ", only float32 and float64 are computed");
}

// OpError unless a per-channel parameter holds `expected` elements (when both are known).
void expectParamSize(const OpContext& ctx, size_t slot, const char* name, int64_t expected, const char* what) {
  if (!ctx.has(slot) || expected < 0) return;
  const ir::TensorType& t = ctx.type(slot);
  const int64_t n = ir::numElements(t.shape);
  if (!t.rankKnown || n < 0) return;
  if (n != expected)
    ctx.fail(std::string(name) + " has shape " + ir::shapeToString(t.shape) + ", expected " +
             std::to_string(expected) + " elements (" + what + ")");
}

// ---- BatchNormalization ----------------------------------------------------

// Old opsets (< 9) had spatial=0: one statistic per (channel, position) instead of per channel.
bool bnPerActivation(const OpContext& ctx) { return ctx.opset() < 9 && ctx.attrs().getInt("spatial", 1) == 0; }

void checkBatchNorm(const OpContext& ctx) {
  ctx.expectInputs(5, 5);
  expectFloatX(ctx);
  // Opset 15 lets scale/B and mean/var have float types of their own.
  for (size_t i = 1; i < 5; ++i) ctx.expectDType(i, {DType::Float32, DType::Float64, DType::Float16});
  if (ctx.attrs().getInt("training_mode", 0) != 0)
    ctx.fail("training-mode BatchNormalization is not supported (training_mode=1); export the model for inference");
  for (size_t i = 1; i < ctx.numOutputs(); ++i)
    if (ctx.hasOutput(i))
      ctx.fail("training-mode BatchNormalization is not supported: the node requests output " + std::to_string(i) +
               " (running or saved statistics); only Y is computed");
  if (!ctx.type(0).rankKnown) return;
  const ir::Shape& x = ctx.shape(0);
  if (x.size() < 2) ctx.fail("X must have rank >= 2 (N, C, ...), got shape " + ir::shapeToString(x));
  int64_t expected = x[1];
  for (size_t i = 2; bnPerActivation(ctx) && i < x.size(); ++i)
    expected = x[i] < 0 || expected < 0 ? ir::kUnknownDim : expected * x[i];
  const char* what = bnPerActivation(ctx) ? "C x D1 x ... x Dn of X, spatial=0" : "the channel count of X";
  expectParamSize(ctx, 1, "scale", expected, what);
  expectParamSize(ctx, 2, "B", expected, what);
  expectParamSize(ctx, 3, "input_mean", expected, what);
  expectParamSize(ctx, 4, "input_var", expected, what);
}

template <class T>
struct BatchNormKernel {
  static std::vector<ir::Tensor> run(const OpContext& ctx) {
    checkBatchNorm(ctx);
    const ir::Tensor& X = ctx.tensor(0);
    const ir::Shape& s = X.shape();
    const int64_t N = s[0], C = s[1], inner = product(s, 2, s.size());
    const double eps = ctx.attrs().getFloat("epsilon", 1e-5f);
    // Y = X * a + b per parameter entry (parameters may have another float type, opset 15).
    const int64_t params = ctx.tensor(1).numel();
    std::vector<T> a(static_cast<size_t>(params)), b(static_cast<size_t>(params));
    for (int64_t i = 0; i < params; ++i) {
      const double scale = ctx.tensor(1).getDouble(i) / std::sqrt(ctx.tensor(4).getDouble(i) + eps);
      a[i] = static_cast<T>(scale);
      b[i] = static_cast<T>(ctx.tensor(2).getDouble(i) - ctx.tensor(3).getDouble(i) * scale);
    }
    const bool perActivation = bnPerActivation(ctx);  // parameter sizes were checked above
    ir::Tensor Y(X.dtype(), s);
    const T* x = X.data<T>();
    T* y = Y.data<T>();
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c) {
        const int64_t base = (n * C + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t p = perActivation ? c * inner + i : c;
          y[base + i] = x[base + i] * a[p] + b[p];
        }
      }
    std::vector<ir::Tensor> out(std::max<size_t>(ctx.numOutputs(), 1));
    out[0] = std::move(Y);
    return out;
  }
};

// ---- InstanceNormalization -------------------------------------------------

void checkInstanceNorm(const OpContext& ctx) {
  ctx.expectInputs(3, 3);
  expectFloatX(ctx);
  for (size_t i = 1; i < 3; ++i) ctx.expectDType(i, {ctx.dtype(0)});
  if (!ctx.type(0).rankKnown) return;
  const ir::Shape& x = ctx.shape(0);
  if (x.size() < 3) ctx.fail("input must have rank >= 3 (N, C, D1, ...), got shape " + ir::shapeToString(x));
  expectParamSize(ctx, 1, "scale", x[1], "the channel count of the input");
  expectParamSize(ctx, 2, "B", x[1], "the channel count of the input");
}

template <class T>
struct InstanceNormKernel {
  static std::vector<ir::Tensor> run(const OpContext& ctx) {
    checkInstanceNorm(ctx);
    const ir::Tensor& X = ctx.tensor(0);
    const ir::Shape& s = X.shape();
    const int64_t N = s[0], C = s[1], inner = product(s, 2, s.size());
    const double eps = ctx.attrs().getFloat("epsilon", 1e-5f);
    ir::Tensor Y(X.dtype(), s);
    const T* x = X.data<T>();
    T* y = Y.data<T>();
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c) {
        if (inner == 0) continue;
        const T* xs = x + (n * C + c) * inner;
        T* ys = y + (n * C + c) * inner;
        double mean = 0.0, var = 0.0;
        for (int64_t i = 0; i < inner; ++i) mean += xs[i];
        mean /= static_cast<double>(inner);
        for (int64_t i = 0; i < inner; ++i) var += (xs[i] - mean) * (xs[i] - mean);
        var /= static_cast<double>(inner);
        const double a = ctx.tensor(1).getDouble(c) / std::sqrt(var + eps);
        const double b = ctx.tensor(2).getDouble(c) - mean * a;
        for (int64_t i = 0; i < inner; ++i) ys[i] = static_cast<T>(xs[i] * a + b);
      }
    return {std::move(Y)};
  }
};

// ---- LRN -------------------------------------------------------------------

int64_t lrnSize(const OpContext& ctx) {
  if (!ctx.attrs().has("size")) ctx.fail("the size attribute is required");
  const int64_t size = ctx.attrs().getInt("size", 0);
  if (size <= 0) ctx.fail("size must be positive, got " + std::to_string(size));
  return size;
}

void checkLrn(const OpContext& ctx) {
  ctx.expectInputs(1, 1);
  expectFloatX(ctx);
  lrnSize(ctx);
  if (ctx.type(0).rankKnown && ctx.rank(0) < 3)
    ctx.fail("X must have rank >= 3 (N, C, D1, ...), got shape " + ir::shapeToString(ctx.shape(0)));
}

template <class T>
struct LrnKernel {
  static std::vector<ir::Tensor> run(const OpContext& ctx) {
    checkLrn(ctx);
    const ir::Tensor& X = ctx.tensor(0);
    const ir::Shape& s = X.shape();
    const int64_t N = s[0], C = s[1], inner = product(s, 2, s.size());
    const int64_t size = lrnSize(ctx);
    const double alpha = ctx.attrs().getFloat("alpha", 1e-4f);
    const double beta = ctx.attrs().getFloat("beta", 0.75f);
    const double bias = ctx.attrs().getFloat("bias", 1.0f);
    // ONNX window: channels c - floor((size-1)/2) .. c + ceil((size-1)/2), clipped to [0, C).
    const int64_t before = (size - 1) / 2, after = size - 1 - before;
    ir::Tensor Y(X.dtype(), s);
    const T* x = X.data<T>();
    T* y = Y.data<T>();
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c) {
        const int64_t lo = std::max<int64_t>(0, c - before), hi = std::min(C - 1, c + after);
        for (int64_t i = 0; i < inner; ++i) {
          double sum = 0.0;
          for (int64_t k = lo; k <= hi; ++k) {
            const double v = x[(n * C + k) * inner + i];
            sum += v * v;
          }
          const int64_t at = (n * C + c) * inner + i;
          y[at] = static_cast<T>(x[at] / std::pow(bias + alpha / static_cast<double>(size) * sum, beta));
        }
      }
    return {std::move(Y)};
  }
};

// ---- LayerNormalization (opset 17) ----------------------------------------

struct LayerNormSetup {
  int64_t axis = -1;
  DType statType = DType::Float32;  // of Mean and InvStdDev (stash_type)
};

LayerNormSetup checkLayerNorm(const OpContext& ctx) {
  ctx.expectInputs(2, 3);
  expectFloatX(ctx);
  if (ctx.numOutputs() > 3) ctx.fail("has " + std::to_string(ctx.numOutputs()) + " outputs, expected at most 3");
  for (size_t i = 1; i < 3; ++i)
    if (ctx.has(i)) ctx.expectDType(i, {ctx.dtype(0)});
  LayerNormSetup setup;
  const int64_t stash = ctx.attrs().getInt("stash_type", 1);
  if (stash == 11) setup.statType = DType::Float64;
  else if (stash != 1) ctx.fail("stash_type " + std::to_string(stash) + " is not supported (1: float, 11: double)");
  if (!ctx.type(0).rankKnown) return setup;
  const int64_t rank = ctx.rank(0);
  if (rank < 1) ctx.fail("X must have rank >= 1, got a scalar");
  setup.axis = normalizeAxis(ctx.attrs().getInt("axis", -1), rank);
  const ir::Shape& x = ctx.shape(0);
  // Scale and B broadcast (numpy rules) to the normalized shape X[axis:].
  for (size_t slot = 1; slot < 3; ++slot) {
    if (!ctx.has(slot) || !ctx.type(slot).rankKnown) continue;
    const ir::Shape& p = ctx.shape(slot);
    const size_t normRank = static_cast<size_t>(rank - setup.axis);
    bool ok = p.size() <= normRank;
    for (size_t i = 0; ok && i < p.size(); ++i) {
      const int64_t pd = p[p.size() - 1 - i], xd = x[x.size() - 1 - i];
      ok = pd == 1 || pd < 0 || xd < 0 || pd == xd;
    }
    if (!ok)
      ctx.fail(std::string(slot == 1 ? "Scale" : "B") + " has shape " + ir::shapeToString(p) +
               ", which does not broadcast to the normalized shape " +
               ir::shapeToString(ir::Shape(x.begin() + setup.axis, x.end())));
  }
  return setup;
}

// A parameter expanded to the D elements of the normalized shape `norm`.
std::vector<double> expandParam(const ir::Tensor& p, const ir::Shape& norm, int64_t D) {
  std::vector<double> out(static_cast<size_t>(D));
  const ir::Shape& ps = p.shape();
  const size_t off = norm.size() - ps.size();
  for (int64_t i = 0; i < D; ++i) {
    int64_t rem = i, src = 0, stride = 1;
    for (size_t k = norm.size(); k-- > 0;) {
      const int64_t idx = rem % norm[k];
      rem /= norm[k];
      if (k >= off) {
        const int64_t pd = ps[k - off];
        src += (pd == 1 ? 0 : idx) * stride;
        stride *= pd;
      }
    }
    out[i] = p.getDouble(src);
  }
  return out;
}

template <class T>
struct LayerNormKernel {
  static std::vector<ir::Tensor> run(const OpContext& ctx) {
    const LayerNormSetup setup = checkLayerNorm(ctx);
    const ir::Tensor& X = ctx.tensor(0);
    const ir::Shape& s = X.shape();
    const size_t axis = static_cast<size_t>(setup.axis);
    const int64_t outer = product(s, 0, axis), D = product(s, axis, s.size());
    const ir::Shape norm(s.begin() + setup.axis, s.end());
    const std::vector<double> scale = expandParam(ctx.tensor(1), norm, D);
    const std::vector<double> bias = ctx.has(2) ? expandParam(ctx.tensor(2), norm, D) : std::vector<double>(D, 0.0);
    const double eps = ctx.attrs().getFloat("epsilon", 1e-5f);

    ir::Shape statShape = s;
    for (size_t i = axis; i < statShape.size(); ++i) statShape[i] = 1;
    ir::Tensor Y(X.dtype(), s), mean(setup.statType, statShape), invStd(setup.statType, statShape);
    const T* x = X.data<T>();
    T* y = Y.data<T>();
    for (int64_t o = 0; o < outer && D > 0; ++o) {
      const T* xs = x + o * D;
      double m = 0.0, var = 0.0;
      for (int64_t i = 0; i < D; ++i) m += xs[i];
      m /= static_cast<double>(D);
      for (int64_t i = 0; i < D; ++i) var += (xs[i] - m) * (xs[i] - m);
      var /= static_cast<double>(D);
      const double inv = 1.0 / std::sqrt(var + eps);
      for (int64_t i = 0; i < D; ++i) y[o * D + i] = static_cast<T>((xs[i] - m) * inv * scale[i] + bias[i]);
      mean.setDouble(o, m);
      invStd.setDouble(o, inv);
    }
    std::vector<ir::Tensor> out(ctx.numOutputs());
    if (!out.empty()) out[0] = std::move(Y);
    if (ctx.hasOutput(1)) out[1] = std::move(mean);
    if (ctx.hasOutput(2)) out[2] = std::move(invStd);
    return out;
  }
};

std::vector<ir::TensorType> sameAsX(const OpContext& ctx) { return {ctx.type(0)}; }

OpDef normDef(const char* type, InferFn infer, ComputeFn compute, FlopsFn flops) {
  OpDef def;
  def.type = type;
  def.category = OpCategory::Normalization;
  def.infer = std::move(infer);
  def.compute = std::move(compute);
  def.flops = std::move(flops);
  return def;
}

}  // namespace

void registerNormOps(OpRegistry& r) {
  r.add(normDef(
      "BatchNormalization",
      [](const OpContext& ctx) {
        checkBatchNorm(ctx);
        // Slots 1..4 are rejected above when present; keep one entry per slot.
        std::vector<ir::TensorType> out(std::max<size_t>(ctx.numOutputs(), 1));
        out[0] = ctx.type(0);
        return out;
      },
      dispatchFloat<BatchNormKernel>,
      [](const OpContext&, std::span<const ir::TensorType> out) { return 2.0 * outputNumel(out); }));
  r.add(normDef(
      "InstanceNormalization",
      [](const OpContext& ctx) {
        checkInstanceNorm(ctx);
        return sameAsX(ctx);
      },
      dispatchFloat<InstanceNormKernel>,
      // mean (1), variance (2), scale and shift (2) per element
      [](const OpContext&, std::span<const ir::TensorType> out) { return 5.0 * outputNumel(out); }));
  r.add(normDef(
      "LRN",
      [](const OpContext& ctx) {
        checkLrn(ctx);
        return sameAsX(ctx);
      },
      dispatchFloat<LrnKernel>,
      // a multiply-add per window element, then scale, power and divide
      [](const OpContext& ctx, std::span<const ir::TensorType> out) {
        const double size = static_cast<double>(ctx.attrs().getInt("size", 1));
        return (2.0 * size + 3.0) * outputNumel(out);
      }));
  r.add(normDef(
      "LayerNormalization",
      [](const OpContext& ctx) {
        const LayerNormSetup setup = checkLayerNorm(ctx);
        const ir::TensorType& x = ctx.type(0);
        ir::TensorType stat{setup.statType, x.shape, x.rankKnown};
        if (x.rankKnown)
          for (size_t i = static_cast<size_t>(setup.axis); i < stat.shape.size(); ++i) stat.shape[i] = 1;
        return std::vector<ir::TensorType>{x, stat, stat};
      },
      dispatchFloat<LayerNormKernel>,
      [](const OpContext&, std::span<const ir::TensorType> out) { return 5.0 * outputNumel(out); }));
}

}  // namespace rammer::ops
