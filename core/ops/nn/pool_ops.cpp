// Pooling: MaxPool (with optional Indices), AveragePool, LpPool and their
// Global forms, 1-D to 3-D, over the shared window geometry.
#include <cmath>
#include <limits>
#include <type_traits>
#include <string>
#include <vector>

#include "core/ops/nn/conv_geometry.h"
#include "core/ops/op_registry.h"

namespace rammer::ops {

namespace {

using ir::kUnknownDim;

enum class PoolKind { Max, Average, Lp };

// Checks X and reads the window attributes; `rankKnown` false when neither X
// nor kernel_shape tells the rank.
struct PoolSetup {
  bool rankKnown = false;
  ir::Shape inShape;  // X's shape (dims may be unknown at inference)
  WindowAttrs attrs;
};

PoolSetup setupPool(const OpContext& ctx, PoolKind kind) {
  ctx.expectInputs(1, 1);
  if (kind == PoolKind::Max)
    ctx.expectDType(0, {ir::DType::Float32, ir::DType::Float64, ir::DType::Float16, ir::DType::Int8, ir::DType::UInt8});
  else
    ctx.expectDType(0, {ir::DType::Float32, ir::DType::Float64, ir::DType::Float16});
  const ir::TensorType& x = ctx.type(0);
  PoolSetup s;
  size_t spatial = 0;
  if (x.rankKnown) {
    if (x.shape.size() < 3) ctx.fail("X " + ir::shapeToString(x.shape) + " must have rank >= 3 ([N, C, spatial...])");
    spatial = x.shape.size() - 2;
    s.inShape = x.shape;
  } else if (ctx.attrs().has("kernel_shape")) {
    spatial = ctx.attrs().getInts("kernel_shape").size();
    s.inShape.assign(spatial + 2, kUnknownDim);
  } else {
    ctx.fail("attribute kernel_shape is required");
  }
  s.attrs = readWindowAttrs(ctx, spatial);
  s.rankKnown = true;
  if (kind == PoolKind::Max) {
    const int64_t order = ctx.attrs().getInt("storage_order", 0);
    if (order != 0 && order != 1) ctx.fail("storage_order " + std::to_string(order) + " must be 0 or 1");
  }
  return s;
}

ir::Shape pooledShape(const OpContext& ctx, const PoolSetup& s) {
  ir::Shape out{s.inShape[0], s.inShape[1]};
  for (size_t i = 0; i < s.attrs.spatial(); ++i) out.push_back(slidingExtent(ctx, s.attrs, i, s.inShape[i + 2]).out);
  return out;
}

std::vector<ir::TensorType> inferPool(const OpContext& ctx, PoolKind kind) {
  PoolSetup s = setupPool(ctx, kind);
  ir::Shape out = pooledShape(ctx, s);
  std::vector<ir::TensorType> types{ir::TensorType{ctx.dtype(0), out, true}};
  if (kind == PoolKind::Max) types.push_back(ir::TensorType{ir::DType::Int64, out, true});
  return types;
}

// Calls f(outIndex, lo, hi, start) for every output position of one plane:
// lo/hi bound the window taps that land inside the input per dim, start is
// the window's first input coordinate (possibly in the padding).
template <class F>
void forEachWindow(const Window3& w, F&& f) {
  std::array<int64_t, 3> lo{}, hi{}, start{};
  int64_t o = 0;
  for (int64_t od = 0; od < w.out[0]; ++od) {
    validTaps(od, w.in[0], w.kernel[0], w.stride[0], w.dilation[0], w.padBegin[0], lo[0], hi[0]);
    start[0] = od * w.stride[0] - w.padBegin[0];
    for (int64_t oh = 0; oh < w.out[1]; ++oh) {
      validTaps(oh, w.in[1], w.kernel[1], w.stride[1], w.dilation[1], w.padBegin[1], lo[1], hi[1]);
      start[1] = oh * w.stride[1] - w.padBegin[1];
      for (int64_t ow = 0; ow < w.out[2]; ++ow, ++o) {
        validTaps(ow, w.in[2], w.kernel[2], w.stride[2], w.dilation[2], w.padBegin[2], lo[2], hi[2]);
        start[2] = ow * w.stride[2] - w.padBegin[2];
        f(o, lo, hi, start);
      }
    }
  }
}

// Number of taps of an output position's window that fall inside the input
// extended by its pads (AveragePool's count_include_pad divisor). Windows that
// ceil_mode lets run past the end padding count only up to it, as in PyTorch.
int64_t paddedTapCount(const Window3& w, const std::array<int64_t, 3>& start) {
  int64_t count = 1;
  for (int i = 0; i < 3; ++i) {
    // Taps k with start + k*dilation in [-padBegin, in + padEnd); start >= -padBegin always.
    int64_t hi = ceilDiv(w.in[i] + w.padEnd[i] - start[i], w.dilation[i]);
    if (hi > w.kernel[i]) hi = w.kernel[i];
    count *= hi > 0 ? hi : 0;
  }
  return count;
}

template <class T>
bool isNan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

template <class T>
void maxPoolPlanes(const T* x, T* y, int64_t* indices, int64_t planes, const Window3& w, bool columnMajor) {
  const int64_t inSize = w.inSize(), outSize = w.outSize();
  const int64_t ID = w.in[0], IH = w.in[1], IW = w.in[2];
  for (int64_t p = 0; p < planes; ++p) {
    const T* xp = x + p * inSize;
    T* yp = y + p * outSize;
    forEachWindow(w, [&](int64_t o, const auto& lo, const auto& hi, const auto& start) {
      T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
      bool found = false;
      int64_t bd = 0, bh = 0, bw = 0;
      for (int64_t kd = lo[0]; kd < hi[0]; ++kd) {
        const int64_t id = start[0] + kd * w.dilation[0];
        for (int64_t kh = lo[1]; kh < hi[1]; ++kh) {
          const int64_t ih = start[1] + kh * w.dilation[1];
          const T* row = xp + (id * IH + ih) * IW;
          for (int64_t kw = lo[2]; kw < hi[2]; ++kw) {
            const int64_t iw = start[2] + kw * w.dilation[2];
            const T v = row[iw];
            // NaN propagates (the first one wins), as in PyTorch; ties keep the first.
            if (!found || v > best || (isNan(v) && !isNan(best))) {
              found = true;
              best = v;
              bd = id;
              bh = ih;
              bw = iw;
            }
          }
        }
      }
      yp[o] = best;
      if (indices) {
        // Flat index into X (batch and channel included); the spatial part in
        // row- or column-major order per storage_order. Unit leading dims of
        // the canonical 3-D form contribute nothing to either.
        const int64_t spatial = columnMajor ? bd + bh * ID + bw * ID * IH : (bd * IH + bh) * IW + bw;
        indices[p * outSize + o] = p * inSize + spatial;
      }
    });
  }
}

template <class T>
void averagePoolPlanes(const T* x, T* y, int64_t planes, const Window3& w, bool countIncludePad) {
  const int64_t inSize = w.inSize(), outSize = w.outSize();
  const int64_t IH = w.in[1], IW = w.in[2];
  for (int64_t p = 0; p < planes; ++p) {
    const T* xp = x + p * inSize;
    T* yp = y + p * outSize;
    forEachWindow(w, [&](int64_t o, const auto& lo, const auto& hi, const auto& start) {
      T sum = 0;
      int64_t count = 0;
      for (int64_t kd = lo[0]; kd < hi[0]; ++kd) {
        const int64_t id = start[0] + kd * w.dilation[0];
        for (int64_t kh = lo[1]; kh < hi[1]; ++kh) {
          const T* row = xp + (id * IH + start[1] + kh * w.dilation[1]) * IW + start[2];
          for (int64_t kw = lo[2]; kw < hi[2]; ++kw) {
            sum += row[kw * w.dilation[2]];
            ++count;
          }
        }
      }
      if (countIncludePad) count = paddedTapCount(w, start);
      yp[o] = count > 0 ? sum / static_cast<T>(count) : T(0);
    });
  }
}

template <class T>
void lpPoolPlanes(const T* x, T* y, int64_t planes, const Window3& w, double p) {
  const int64_t inSize = w.inSize(), outSize = w.outSize();
  const int64_t IH = w.in[1], IW = w.in[2];
  for (int64_t c = 0; c < planes; ++c) {
    const T* xp = x + c * inSize;
    T* yp = y + c * outSize;
    forEachWindow(w, [&](int64_t o, const auto& lo, const auto& hi, const auto& start) {
      double sum = 0;
      for (int64_t kd = lo[0]; kd < hi[0]; ++kd) {
        const int64_t id = start[0] + kd * w.dilation[0];
        for (int64_t kh = lo[1]; kh < hi[1]; ++kh) {
          const T* row = xp + (id * IH + start[1] + kh * w.dilation[1]) * IW + start[2];
          for (int64_t kw = lo[2]; kw < hi[2]; ++kw)
            sum += std::pow(std::abs(static_cast<double>(row[kw * w.dilation[2]])), p);
        }
      }
      yp[o] = static_cast<T>(std::pow(sum, 1.0 / p));
    });
  }
}

// LpPool's p: an int since opset 2, a float in opset 1.
double lpExponent(const OpContext& ctx) {
  double p = 2.0;
  if (const ir::AttrValue* v = ctx.attrs().find("p")) {
    if (const auto* i = std::get_if<int64_t>(v)) p = static_cast<double>(*i);
    else if (const auto* f = std::get_if<float>(v)) p = *f;
    else ctx.fail("attribute p must be a number");
  }
  if (!(p > 0)) ctx.fail("p must be positive, got " + std::to_string(p));
  return p;
}

template <class F>
void dispatchPoolType(const OpContext& ctx, F&& f) {
  switch (ctx.dtype(0)) {
    case ir::DType::Float32: f(float{}); return;
    case ir::DType::Float64: f(double{}); return;
    case ir::DType::Int8: f(int8_t{}); return;
    case ir::DType::UInt8: f(uint8_t{}); return;
    default: ctx.fail("cannot compute " + std::string(ir::dtypeName(ctx.dtype(0))));
  }
}

std::vector<ir::Tensor> computePool(const OpContext& ctx, PoolKind kind) {
  PoolSetup s = setupPool(ctx, kind);
  const ir::Tensor& X = ctx.tensor(0);
  const std::vector<int64_t> inSpatial(X.shape().begin() + 2, X.shape().end());
  const Window3 w = slidingWindow3(ctx, s.attrs, inSpatial);
  ir::Shape outShape{X.shape()[0], X.shape()[1]};
  for (size_t i = 0; i < inSpatial.size(); ++i) outShape.push_back(w.out[3 - inSpatial.size() + i]);
  const int64_t planes = X.shape()[0] * X.shape()[1];
  ir::Tensor Y(X.dtype(), outShape);
  ir::Tensor I;
  const bool wantIndices = kind == PoolKind::Max && ctx.numOutputs() > 1 && ctx.hasOutput(1);
  if (wantIndices) I = ir::Tensor(ir::DType::Int64, outShape);
  dispatchPoolType(ctx, [&](auto tag) {
    using T = decltype(tag);
    if (kind == PoolKind::Max) {
      const bool columnMajor = ctx.attrs().getInt("storage_order", 0) == 1;
      maxPoolPlanes<T>(X.data<T>(), Y.data<T>(), wantIndices ? I.data<int64_t>() : nullptr, planes, w, columnMajor);
      return;
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (kind == PoolKind::Average)
        averagePoolPlanes<T>(X.data<T>(), Y.data<T>(), planes, w, ctx.attrs().getInt("count_include_pad", 0) != 0);
      else
        lpPoolPlanes<T>(X.data<T>(), Y.data<T>(), planes, w, lpExponent(ctx));
    }
  });
  std::vector<ir::Tensor> out;
  out.push_back(std::move(Y));
  if (wantIndices) out.push_back(std::move(I));
  return out;
}

double flopsPool(const OpContext& ctx, std::span<const ir::TensorType> outputs) {
  if (outputs.empty() || !outputs[0].fullyKnown()) return 0.0;
  const std::vector<int64_t> kernel = ctx.attrs().getInts("kernel_shape");
  double taps = 1.0;
  for (int64_t k : kernel) taps *= static_cast<double>(k);
  // One compare or add per window tap.
  return taps * static_cast<double>(ir::numElements(outputs[0].shape));
}

// ---- Global pools: one window covering every spatial dim ----

std::vector<ir::TensorType> inferGlobalPool(const OpContext& ctx) {
  ctx.expectInputs(1, 1);
  ctx.expectDType(0, {ir::DType::Float32, ir::DType::Float64, ir::DType::Float16});
  const ir::TensorType& x = ctx.type(0);
  if (!x.rankKnown) return {ir::TensorType{x.dtype, {}, false}};
  if (x.shape.size() < 2) ctx.fail("X " + ir::shapeToString(x.shape) + " must have rank >= 2 ([N, C, spatial...])");
  ir::Shape out = x.shape;
  for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
  return {ir::TensorType{x.dtype, out, true}};
}

template <PoolKind kind>
std::vector<ir::Tensor> computeGlobalPool(const OpContext& ctx) {
  std::vector<ir::TensorType> types = inferGlobalPool(ctx);
  const ir::Tensor& X = ctx.tensor(0);
  ir::Tensor Y(X.dtype(), types[0].shape);
  const int64_t planes = X.shape()[0] * X.shape()[1];
  const int64_t plane = planes > 0 ? X.numel() / planes : 0;
  const double p = kind == PoolKind::Lp ? lpExponent(ctx) : 1.0;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* x = X.data<T>();
    T* y = Y.data<T>();
    for (int64_t c = 0; c < planes; ++c) {
      const T* xp = x + c * plane;
      if constexpr (kind == PoolKind::Max) {
        T best = -std::numeric_limits<T>::infinity();
        for (int64_t i = 0; i < plane; ++i)
          if (xp[i] > best || std::isnan(xp[i])) {
            best = xp[i];
            if (std::isnan(best)) break;
          }
        y[c] = best;
      } else if constexpr (kind == PoolKind::Average) {
        double sum = 0;  // double: planes can be large
        for (int64_t i = 0; i < plane; ++i) sum += xp[i];
        y[c] = static_cast<T>(plane > 0 ? sum / static_cast<double>(plane) : 0.0);
      } else {
        double sum = 0;
        for (int64_t i = 0; i < plane; ++i) sum += std::pow(std::abs(static_cast<double>(xp[i])), p);
        y[c] = static_cast<T>(std::pow(sum, 1.0 / p));
      }
    }
  };
  if (X.dtype() == ir::DType::Float32) run(float{});
  else if (X.dtype() == ir::DType::Float64) run(double{});
  else ctx.fail("cannot compute " + std::string(ir::dtypeName(X.dtype())));
  std::vector<ir::Tensor> out;
  out.push_back(std::move(Y));
  return out;
}

double flopsGlobalPool(const OpContext& ctx, std::span<const ir::TensorType>) {
  return ctx.type(0).fullyKnown() ? static_cast<double>(ir::numElements(ctx.shape(0))) : 0.0;
}

void addWindowPool(OpRegistry& r, const char* type, PoolKind kind) {
  r.add(OpDef{.type = type,
              .category = OpCategory::Pooling,
              .infer = [kind](const OpContext& ctx) { return inferPool(ctx, kind); },
              .compute = [kind](const OpContext& ctx) { return computePool(ctx, kind); },
              .flops = flopsPool});
}

}  // namespace

void registerPoolOps(OpRegistry& r) {
  addWindowPool(r, "MaxPool", PoolKind::Max);
  addWindowPool(r, "AveragePool", PoolKind::Average);
  addWindowPool(r, "LpPool", PoolKind::Lp);
  r.add(OpDef{.type = "GlobalMaxPool", .category = OpCategory::Pooling, .infer = inferGlobalPool,
              .compute = computeGlobalPool<PoolKind::Max>, .flops = flopsGlobalPool});
  r.add(OpDef{.type = "GlobalAveragePool", .category = OpCategory::Pooling, .infer = inferGlobalPool,
              .compute = computeGlobalPool<PoolKind::Average>, .flops = flopsGlobalPool});
  r.add(OpDef{.type = "GlobalLpPool", .category = OpCategory::Pooling, .infer = inferGlobalPool,
              .compute = computeGlobalPool<PoolKind::Lp>, .flops = flopsGlobalPool});
}

}  // namespace rammer::ops
