// Conv and ConvTranspose (1-D to 3-D, groups, dilations, auto_pad), float32.
// Conv lowers each group to im2col + sgemm (pointwise convs skip the im2col,
// depthwise ones run a direct kernel); ConvTranspose is sgemm + col2im.
#include <string>
#include <vector>

#include "core/ops/nn/conv_geometry.h"
#include "core/ops/nn/conv_im2col.h"
#include "core/ops/math/gemm.h"
#include "core/ops/op_registry.h"

namespace rammer::ops {

namespace {

using ir::kUnknownDim;

std::string dimStr(int64_t d) { return d < 0 ? std::string("?") : std::to_string(d); }

// What Conv and ConvTranspose learn from X, W, B and the attributes. Any
// extent may be kUnknownDim at inference time.
struct ConvSetup {
  bool rankKnown = false;
  size_t spatial = 0;
  int64_t batch = kUnknownDim;
  int64_t inChannels = kUnknownDim;   // X's C
  int64_t outChannels = kUnknownDim;  // Y's channels
  int64_t group = 1;
  std::vector<int64_t> inSpatial;  // X's spatial dims
  WindowAttrs attrs;
};

int64_t dimOr(const ir::TensorType& t, size_t i) {
  return t.rankKnown && i < t.shape.size() ? t.shape[i] : kUnknownDim;
}

// Shared checks of X [N, C, ...], W and B. `transposed` selects the weight
// layout: Conv W is [M, C/group, k...], ConvTranspose W is [C, M/group, k...].
ConvSetup setupConv(const OpContext& ctx, bool transposed) {
  ctx.expectInputs(2, 3);
  ctx.expectDType(0, {ir::DType::Float32, ir::DType::Float64, ir::DType::Float16});
  if (ctx.dtype(1) != ctx.dtype(0))
    ctx.fail("W has type " + std::string(ir::dtypeName(ctx.dtype(1))) + " but X has " +
             std::string(ir::dtypeName(ctx.dtype(0))));
  const ir::TensorType& x = ctx.type(0);
  const ir::TensorType& w = ctx.type(1);
  ConvSetup s;
  s.group = ctx.attrs().getInt("group", 1);
  if (s.group < 1) ctx.fail("group " + std::to_string(s.group) + " must be positive");
  if (x.rankKnown && x.shape.size() < 3)
    ctx.fail("X " + ir::shapeToString(x.shape) + " must have rank >= 3 ([N, C, spatial...])");
  if (w.rankKnown && w.shape.size() < 3)
    ctx.fail("W " + ir::shapeToString(w.shape) + " must have rank >= 3");
  if (x.rankKnown && w.rankKnown && x.shape.size() != w.shape.size())
    ctx.fail("X " + ir::shapeToString(x.shape) + " and W " + ir::shapeToString(w.shape) + " differ in rank");
  if (!x.rankKnown && !w.rankKnown) return s;
  s.rankKnown = true;
  const size_t rank = x.rankKnown ? x.shape.size() : w.shape.size();
  s.spatial = rank - 2;
  s.batch = dimOr(x, 0);
  s.inChannels = dimOr(x, 1);
  for (size_t i = 0; i < s.spatial; ++i) s.inSpatial.push_back(dimOr(x, i + 2));
  std::vector<int64_t> kernel;
  for (size_t i = 0; i < s.spatial; ++i) kernel.push_back(dimOr(w, i + 2));
  s.attrs = readWindowAttrs(ctx, s.spatial, kernel);

  const int64_t w0 = dimOr(w, 0), w1 = dimOr(w, 1);
  const std::string wStr = w.rankKnown ? ir::shapeToString(w.shape) : std::string("of unknown shape");
  const std::string groupStr = std::to_string(s.group);
  if (s.inChannels >= 0 && s.inChannels % s.group != 0)
    ctx.fail("group " + groupStr + " does not divide the " + std::to_string(s.inChannels) + " channels of X");
  if (!transposed) {
    // W [M, C/group, k...]
    if (s.inChannels >= 0 && w1 >= 0 && s.inChannels != w1 * s.group)
      ctx.fail("X has " + std::to_string(s.inChannels) + " channels but W " + wStr + " expects " + std::to_string(w1) +
               " per group x group " + groupStr + " = " + std::to_string(w1 * s.group));
    if (w0 >= 0 && w0 % s.group != 0)
      ctx.fail("group " + groupStr + " does not divide the " + std::to_string(w0) + " output channels of W " + wStr);
    s.outChannels = w0;
  } else {
    // W [C, M/group, k...]
    if (s.inChannels >= 0 && w0 >= 0 && s.inChannels != w0)
      ctx.fail("X has " + std::to_string(s.inChannels) + " channels but W " + wStr + " expects " + std::to_string(w0));
    if (w0 >= 0 && w0 % s.group != 0)
      ctx.fail("group " + groupStr + " does not divide the " + std::to_string(w0) + " input channels of W " + wStr);
    s.outChannels = w1 >= 0 ? w1 * s.group : kUnknownDim;
  }
  if (ctx.has(2)) {
    const ir::TensorType& b = ctx.type(2);
    if (b.dtype != ctx.dtype(0)) ctx.fail("B has type " + std::string(ir::dtypeName(b.dtype)) + ", X has " +
                                          std::string(ir::dtypeName(ctx.dtype(0))));
    if (b.rankKnown && (b.shape.size() != 1 || (b.shape[0] >= 0 && s.outChannels >= 0 && b.shape[0] != s.outChannels)))
      ctx.fail("B " + ir::shapeToString(b.shape) + " must be [" + dimStr(s.outChannels) + "] (one per output channel)");
  }
  return s;
}

ir::TensorType unknownRank(ir::DType t) { return ir::TensorType{t, {}, false}; }

// ---- Conv ----

std::vector<ir::TensorType> inferConv(const OpContext& ctx) {
  ConvSetup s = setupConv(ctx, false);
  if (!s.rankKnown) return {unknownRank(ctx.dtype(0))};
  ir::Shape out{s.batch, s.outChannels};
  for (size_t i = 0; i < s.spatial; ++i) out.push_back(slidingExtent(ctx, s.attrs, i, s.inSpatial[i]).out);
  return {ir::TensorType{ctx.dtype(0), out, true}};
}

void requireFloat32(const OpContext& ctx) {
  if (ctx.dtype(0) != ir::DType::Float32)
    ctx.fail("computes float32 only, X is " + std::string(ir::dtypeName(ctx.dtype(0))));
}

void addBias(const OpContext& ctx, float* y, int64_t batch, int64_t channels, int64_t plane) {
  if (!ctx.has(2)) return;
  const float* b = ctx.tensor(2).data<float>();
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      float* p = y + (n * channels + c) * plane;
      const float v = b[c];
      for (int64_t i = 0; i < plane; ++i) p[i] += v;
    }
}

std::vector<ir::Tensor> computeConv(const OpContext& ctx) {
  ConvSetup s = setupConv(ctx, false);
  requireFloat32(ctx);
  const Window3 w = slidingWindow3(ctx, s.attrs, s.inSpatial);
  const ir::Tensor& X = ctx.tensor(0);
  const ir::Tensor& W = ctx.tensor(1);
  ir::Shape outShape{s.batch, s.outChannels};
  for (size_t i = 0; i < s.spatial; ++i) outShape.push_back(w.out[3 - s.spatial + i]);
  ir::Tensor Y(ir::DType::Float32, outShape);

  const int64_t G = s.group, Cg = s.inChannels / G, Mg = s.outChannels / G;
  const int64_t inSize = w.inSize(), outSize = w.outSize(), K = w.kernelSize();
  const float* x = X.data<float>();
  const float* wt = W.data<float>();
  float* y = Y.data<float>();

  if (Cg == 1 && G > 1) {
    // Depthwise (possibly with a channel multiplier): a direct kernel beats a
    // GEMM with a single-row operand.
    for (int64_t n = 0; n < s.batch; ++n)
      depthwiseConvAdd(x + n * s.inChannels * inSize, wt, s.outChannels, Mg, w, y + n * s.outChannels * outSize);
  } else {
    const bool pointwise = w.isPointwise();
    std::vector<float> col(pointwise ? 0 : static_cast<size_t>(Cg * K * outSize));
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t g = 0; g < G; ++g) {
        const float* xg = x + (n * s.inChannels + g * Cg) * inSize;
        const float* wg = wt + g * Mg * Cg * K;
        float* yg = y + (n * s.outChannels + g * Mg) * outSize;
        const float* b = xg;
        if (!pointwise) {
          im2col(xg, Cg, w, col.data());
          b = col.data();
        }
        sgemm(false, false, Mg, outSize, Cg * K, 1.0f, wg, Cg * K, b, outSize, 0.0f, yg, outSize);
      }
  }
  addBias(ctx, y, s.batch, s.outChannels, outSize);
  std::vector<ir::Tensor> out;
  out.push_back(std::move(Y));
  return out;
}

double flopsConv(const OpContext& ctx, std::span<const ir::TensorType> outputs) {
  if (outputs.empty() || !outputs[0].fullyKnown() || !ctx.type(1).fullyKnown()) return 0.0;
  const ir::Shape& w = ctx.shape(1);
  double perOutput = 1.0;  // MACs per output element: C/group * kernel size
  for (size_t i = 1; i < w.size(); ++i) perOutput *= static_cast<double>(w[i]);
  return 2.0 * perOutput * static_cast<double>(ir::numElements(outputs[0].shape));
}

// ---- ConvTranspose ----

// output_padding and output_shape, per spatial dim (output_shape: kUnknownDim
// when absent). Old exporters give output_shape with N and C: those are dropped.
void transposeAttrs(const OpContext& ctx, size_t spatial, std::vector<int64_t>& outputPadding,
                    std::vector<int64_t>& outputShape) {
  outputPadding = ctx.attrs().getInts("output_padding", std::vector<int64_t>(spatial, 0));
  if (outputPadding.size() != spatial)
    ctx.fail("output_padding " + ir::shapeToString(outputPadding) + " must have " + std::to_string(spatial) +
             " entries");
  for (int64_t p : outputPadding)
    if (p < 0) ctx.fail("output_padding " + ir::shapeToString(outputPadding) + " must be non-negative");
  outputShape.assign(spatial, kUnknownDim);
  if (ctx.attrs().has("output_shape")) {
    std::vector<int64_t> v = ctx.attrs().getInts("output_shape");
    if (v.size() == spatial + 2) v.erase(v.begin(), v.begin() + 2);
    if (v.size() != spatial)
      ctx.fail("output_shape " + ir::shapeToString(v) + " must have " + std::to_string(spatial) + " entries");
    for (int64_t d : v)
      if (d <= 0) ctx.fail("output_shape " + ir::shapeToString(v) + " must be positive");
    outputShape = v;
  }
}

std::vector<ir::TensorType> inferConvTranspose(const OpContext& ctx) {
  ConvSetup s = setupConv(ctx, true);
  if (!s.rankKnown) return {unknownRank(ctx.dtype(0))};
  std::vector<int64_t> outputPadding, outputShape;
  transposeAttrs(ctx, s.spatial, outputPadding, outputShape);
  ir::Shape out{s.batch, s.outChannels};
  for (size_t i = 0; i < s.spatial; ++i)
    out.push_back(transposedExtent(ctx, s.attrs, i, s.inSpatial[i], outputPadding[i], outputShape[i]).out);
  return {ir::TensorType{ctx.dtype(0), out, true}};
}

std::vector<ir::Tensor> computeConvTranspose(const OpContext& ctx) {
  ConvSetup s = setupConv(ctx, true);
  requireFloat32(ctx);
  if (s.spatial > 3) ctx.fail("supports at most 3 spatial dims, got " + std::to_string(s.spatial));
  std::vector<int64_t> outputPadding, outputShape;
  transposeAttrs(ctx, s.spatial, outputPadding, outputShape);
  // The adjoint Conv maps Y's spatial space (Window3::in) to X's (Window3::out).
  Window3 w;
  ir::Shape outShape{s.batch, s.outChannels};
  const size_t off = 3 - s.spatial;
  for (size_t i = 0; i < s.spatial; ++i) {
    DimExtent e = transposedExtent(ctx, s.attrs, i, s.inSpatial[i], outputPadding[i], outputShape[i]);
    w.in[off + i] = e.out;
    w.out[off + i] = s.inSpatial[i];
    w.kernel[off + i] = s.attrs.kernel[i];
    w.stride[off + i] = s.attrs.strides[i];
    w.dilation[off + i] = s.attrs.dilations[i];
    w.padBegin[off + i] = e.padBegin;
    w.padEnd[off + i] = e.padEnd;
    outShape.push_back(e.out);
  }
  const ir::Tensor& X = ctx.tensor(0);
  const ir::Tensor& W = ctx.tensor(1);
  ir::Tensor Y(ir::DType::Float32, outShape);

  const int64_t G = s.group, Cg = s.inChannels / G, Mg = s.outChannels / G;
  const int64_t xSize = w.outSize(), ySize = w.inSize(), K = w.kernelSize();
  const float* x = X.data<float>();
  const float* wt = W.data<float>();
  float* y = Y.data<float>();
  std::vector<float> col(static_cast<size_t>(Mg * K * xSize));
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t g = 0; g < G; ++g) {
      const float* xg = x + (n * s.inChannels + g * Cg) * xSize;
      const float* wg = wt + g * Cg * Mg * K;  // rows g*Cg.. of W viewed as [C, Mg*K]
      float* yg = y + (n * s.outChannels + g * Mg) * ySize;
      // col [Mg*K, xSize] = W_g^T [Mg*K, Cg] * X_g [Cg, xSize]
      sgemm(true, false, Mg * K, xSize, Cg, 1.0f, wg, Mg * K, xg, xSize, 0.0f, col.data(), xSize);
      col2imAdd(col.data(), Mg, w, yg);
    }
  addBias(ctx, y, s.batch, s.outChannels, ySize);
  std::vector<ir::Tensor> out;
  out.push_back(std::move(Y));
  return out;
}

double flopsConvTranspose(const OpContext& ctx, std::span<const ir::TensorType> outputs) {
  if (!ctx.type(0).fullyKnown() || !ctx.type(1).fullyKnown()) return 0.0;
  const ir::Shape& w = ctx.shape(1);
  // Every input element is multiplied by M/group * kernel size weights.
  double perInput = 1.0;
  for (size_t i = 1; i < w.size(); ++i) perInput *= static_cast<double>(w[i]);
  return 2.0 * perInput * static_cast<double>(ir::numElements(ctx.shape(0)));
}

// The im2col / col2im columns of one image and group (float32), from the
// types: Conv's [Cg*K, outSize] unless depthwise or pointwise,
// ConvTranspose's [Mg*K, inSize].
int64_t convScratch(const OpContext& ctx, std::span<const ir::TensorType> outputs, bool transposed) {
  if (ctx.numInputs() < 2 || outputs.empty()) return -1;
  const ir::TensorType &x = ctx.type(0), &w = ctx.type(1), &y = outputs[0];
  if (!x.fullyKnown() || !w.fullyKnown() || !y.fullyKnown() || x.shape.size() < 3 || w.shape.size() < 3 ||
      y.shape.size() < 3)
    return -1;
  if (ir::numElements(y.shape) == 0) return 0;  // ops::computeOp does not compute an empty output
  auto tail = [](const ir::Shape& s, size_t from) {
    int64_t p = 1;
    for (size_t i = from; i < s.size(); ++i) p *= s[i];
    return p;
  };
  const int64_t inSize = tail(x.shape, 2), outSize = tail(y.shape, 2), K = tail(w.shape, 2);
  if (transposed) return 4 * tail(w.shape, 1) * inSize;
  const int64_t Cg = w.shape[1];
  const bool depthwise = Cg == 1 && x.shape[1] > 1;
  const bool pointwise = K == 1 && outSize == inSize;
  return depthwise || pointwise ? 0 : 4 * Cg * K * outSize;
}

}  // namespace

void registerConvOps(OpRegistry& r) {
  r.add(OpDef{.type = "Conv",
              .category = OpCategory::Convolution,
              .infer = inferConv,
              .compute = computeConv,
              .flops = flopsConv,
              .scratch = [](const OpContext& c, auto outs) { return convScratch(c, outs, false); }});
  r.add(OpDef{.type = "ConvTranspose",
              .category = OpCategory::Convolution,
              .infer = inferConvTranspose,
              .compute = computeConvTranspose,
              .flops = flopsConvTranspose,
              .scratch = [](const OpContext& c, auto outs) { return convScratch(c, outs, true); }});
}

}  // namespace rammer::ops
