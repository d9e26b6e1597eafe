#include "core/ops/nn/conv_geometry.h"

#include <string>

namespace rammer::ops {

namespace {

std::string listToString(const std::vector<int64_t>& v) { return ir::shapeToString(v); }

AutoPad parseAutoPad(const OpContext& ctx) {
  const std::string s = ctx.attrs().getString("auto_pad", "NOTSET");
  if (s == "NOTSET" || s.empty()) return AutoPad::NotSet;
  if (s == "SAME_UPPER") return AutoPad::SameUpper;
  if (s == "SAME_LOWER") return AutoPad::SameLower;
  if (s == "VALID") return AutoPad::Valid;
  ctx.fail("auto_pad '" + s + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
}

// A per-dim attribute list: `def` for every dim when absent, else exactly `n`
// entries each at least `min`.
std::vector<int64_t> perDim(const OpContext& ctx, const char* name, size_t n, int64_t def, int64_t min) {
  if (!ctx.attrs().has(name)) return std::vector<int64_t>(n, def);
  std::vector<int64_t> v = ctx.attrs().getInts(name);
  if (v.size() != n)
    ctx.fail(std::string(name) + " " + listToString(v) + " has " + std::to_string(v.size()) + " entries, the input has " +
             std::to_string(n) + " spatial dims");
  for (int64_t x : v)
    if (x < min)
      ctx.fail(std::string(name) + " " + listToString(v) + " must be " + (min == 0 ? "non-negative" : "positive"));
  return v;
}

// Splits a total padding per auto_pad SAME_*: the odd element goes to the end
// for SAME_UPPER and to the beginning for SAME_LOWER.
void splitSame(AutoPad mode, int64_t total, DimExtent& e) {
  if (mode == AutoPad::SameLower) {
    e.padEnd = total / 2;
    e.padBegin = total - e.padEnd;
  } else {
    e.padBegin = total / 2;
    e.padEnd = total - e.padBegin;
  }
}

}  // namespace

WindowAttrs readWindowAttrs(const OpContext& ctx, size_t spatial, const std::vector<int64_t>& kernelFromWeight) {
  if (spatial == 0) ctx.fail("needs at least one spatial dim (input rank >= 3)");
  WindowAttrs a;
  a.autoPad = parseAutoPad(ctx);
  if (ctx.attrs().has("kernel_shape")) {
    a.kernel = perDim(ctx, "kernel_shape", spatial, 1, 1);
    for (size_t i = 0; i < kernelFromWeight.size() && i < spatial; ++i)
      if (kernelFromWeight[i] >= 0 && kernelFromWeight[i] != a.kernel[i])
        ctx.fail("kernel_shape " + listToString(a.kernel) + " does not match the weight's kernel dims " +
                 listToString(kernelFromWeight));
  } else if (!kernelFromWeight.empty()) {
    if (kernelFromWeight.size() != spatial) ctx.fail("the weight's kernel rank does not match the input's");
    a.kernel = kernelFromWeight;
    for (int64_t k : a.kernel)
      if (k == 0) ctx.fail("the weight has an empty kernel " + listToString(a.kernel));
  } else {
    ctx.fail("attribute kernel_shape is required");
  }
  a.strides = perDim(ctx, "strides", spatial, 1, 1);
  a.dilations = perDim(ctx, "dilations", spatial, 1, 1);
  if (ctx.attrs().has("pads")) {
    std::vector<int64_t> pads = ctx.attrs().getInts("pads");
    if (pads.size() != 2 * spatial)
      ctx.fail("pads " + listToString(pads) + " has " + std::to_string(pads.size()) + " entries, expected " +
               std::to_string(2 * spatial) + " (begin and end per spatial dim)");
    for (int64_t p : pads)
      if (p < 0) ctx.fail("pads " + listToString(pads) + " must be non-negative");
    a.padBegin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(spatial));
    a.padEnd.assign(pads.begin() + static_cast<std::ptrdiff_t>(spatial), pads.end());
  } else {
    a.padBegin.assign(spatial, 0);
    a.padEnd.assign(spatial, 0);
  }
  a.ceilMode = ctx.attrs().getInt("ceil_mode", 0) != 0;
  return a;
}

DimExtent slidingExtent(const OpContext& ctx, const WindowAttrs& a, size_t dim, int64_t in) {
  DimExtent e;
  const int64_t k = a.kernel[dim], s = a.strides[dim], d = a.dilations[dim];
  if (a.autoPad == AutoPad::NotSet) {
    e.padBegin = a.padBegin[dim];
    e.padEnd = a.padEnd[dim];
  }
  if (in < 0 || k < 0) return e;  // unknown extent; SAME pads unknown as well
  const int64_t extent = (k - 1) * d + 1;
  if (a.autoPad == AutoPad::SameUpper || a.autoPad == AutoPad::SameLower) {
    e.out = ceilDiv(in, s);
    const int64_t total = (e.out - 1) * s + extent - in;
    splitSame(a.autoPad, total > 0 ? total : 0, e);
    return e;
  }
  const int64_t span = in + e.padBegin + e.padEnd - extent;
  if (span < 0)
    ctx.fail("spatial dim " + std::to_string(dim) + ": the padded input (" + std::to_string(in) + " + pads " +
             std::to_string(e.padBegin) + "," + std::to_string(e.padEnd) + ") is smaller than the kernel extent " +
             std::to_string(extent));
  e.out = (a.ceilMode ? ceilDiv(span, s) : span / s) + 1;
  if (a.ceilMode && (e.out - 1) * s >= in + e.padBegin) --e.out;
  return e;
}

DimExtent transposedExtent(const OpContext& ctx, const WindowAttrs& a, size_t dim, int64_t in, int64_t outputPadding,
                           int64_t outputShape) {
  DimExtent e;
  const int64_t k = a.kernel[dim], s = a.strides[dim], d = a.dilations[dim];
  const bool same = a.autoPad == AutoPad::SameUpper || a.autoPad == AutoPad::SameLower;
  if (outputShape < 0 && !same) {
    if (a.autoPad == AutoPad::NotSet) {
      e.padBegin = a.padBegin[dim];
      e.padEnd = a.padEnd[dim];
    }
    if (in < 0 || k < 0) return e;
    e.out = s * (in - 1) + outputPadding + (k - 1) * d + 1 - e.padBegin - e.padEnd;
    if (e.out <= 0)
      ctx.fail("spatial dim " + std::to_string(dim) + ": the pads " + std::to_string(e.padBegin) + "," +
               std::to_string(e.padEnd) + " remove the whole output");
    return e;
  }
  // Output extent fixed (output_shape, or in * stride for SAME): the pads follow
  // from it. output_shape splits the odd element like SAME_UPPER only under
  // SAME_UPPER (the spec's rule); a negative total (output larger than the
  // natural one) leaves zeros at the end, as the ONNX test data expects.
  if (outputShape >= 0) e.out = outputShape;
  else if (in >= 0) e.out = in * s;
  if (in < 0 || k < 0 || e.out < 0) return e;
  const int64_t total = s * (in - 1) + outputPadding + (k - 1) * d + 1 - e.out;
  if (total < 0) {
    e.padBegin = 0;
    e.padEnd = total;
  } else {
    splitSame(a.autoPad == AutoPad::SameUpper ? AutoPad::SameUpper : AutoPad::SameLower, total, e);
  }
  return e;
}

bool Window3::isPointwise() const {
  for (int i = 0; i < 3; ++i)
    if (kernel[i] != 1 || stride[i] != 1 || padBegin[i] != 0 || in[i] != out[i]) return false;
  return true;
}

Window3 slidingWindow3(const OpContext& ctx, const WindowAttrs& a, const std::vector<int64_t>& inSpatial) {
  const size_t n = inSpatial.size();
  if (n > 3) ctx.fail("supports at most 3 spatial dims, got " + std::to_string(n));
  Window3 w;
  const size_t off = 3 - n;
  for (size_t i = 0; i < n; ++i) {
    DimExtent e = slidingExtent(ctx, a, i, inSpatial[i]);
    if (e.out <= 0) ctx.fail("spatial dim " + std::to_string(i) + " has no output");
    w.in[off + i] = inSpatial[i];
    w.out[off + i] = e.out;
    w.kernel[off + i] = a.kernel[i];
    w.stride[off + i] = a.strides[i];
    w.dilation[off + i] = a.dilations[i];
    w.padBegin[off + i] = e.padBegin;
    w.padEnd[off + i] = e.padEnd;
  }
  return w;
}

}  // namespace rammer::ops
