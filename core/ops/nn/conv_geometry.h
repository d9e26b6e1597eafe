#pragma once
// Sliding-window geometry shared by Conv, ConvTranspose and the pooling ops:
// reading kernel_shape / strides / dilations / pads / auto_pad / ceil_mode,
// output extents (with unknown dims propagated), and a canonical 3-D form the
// kernels loop over (1-D and 2-D windows get leading unit dims, so one loop
// nest serves every rank).
#include <array>
#include <cstdint>
#include <vector>

#include "core/ops/op_context.h"

namespace rammer::ops {

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

struct WindowAttrs {
  AutoPad autoPad = AutoPad::NotSet;
  std::vector<int64_t> kernel;     // kUnknownDim where not known (weight with unknown dims)
  std::vector<int64_t> strides;    // default 1
  std::vector<int64_t> dilations;  // default 1
  std::vector<int64_t> padBegin;   // explicit pads (default 0)
  std::vector<int64_t> padEnd;
  bool ceilMode = false;

  size_t spatial() const { return strides.size(); }
};

// Reads the window attributes of a node for `spatial` dims and validates them
// (list lengths, positive strides/dilations/kernel, non-negative pads).
// `kernelFromWeight` holds the kernel extents taken from a weight's shape
// (Conv, ConvTranspose); a kernel_shape attribute must then agree with it.
// When it is empty (pooling) kernel_shape is required.
WindowAttrs readWindowAttrs(const OpContext& ctx, size_t spatial, const std::vector<int64_t>& kernelFromWeight = {});

// One spatial dim of a window op: the output extent (kUnknownDim when the
// input extent or kernel is unknown) and the pads actually applied.
struct DimExtent {
  int64_t out = ir::kUnknownDim;
  int64_t padBegin = 0;
  int64_t padEnd = 0;
};

// Conv / pooling: windows slide over the padded input. With ceil_mode the
// last window must start inside the input or the left padding (PyTorch's
// rule, which ONNX Runtime follows too).
DimExtent slidingExtent(const OpContext& ctx, const WindowAttrs& a, size_t dim, int64_t in);

// ConvTranspose: `outputShape` is the output_shape attribute's extent for this
// dim, or kUnknownDim when the attribute is absent.
DimExtent transposedExtent(const OpContext& ctx, const WindowAttrs& a, size_t dim, int64_t in, int64_t outputPadding,
                           int64_t outputShape);

// A window op with every extent known, in canonical 3-D form. For Conv and
// pooling `in` is the input's spatial shape and `out` the output's; for
// ConvTranspose the roles swap (it is the adjoint of a Conv from its output
// space to its input space), so the same im2col / col2im serve both.
struct Window3 {
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1},
      padBegin{0, 0, 0}, padEnd{0, 0, 0};

  int64_t inSize() const { return in[0] * in[1] * in[2]; }
  int64_t outSize() const { return out[0] * out[1] * out[2]; }
  int64_t kernelSize() const { return kernel[0] * kernel[1] * kernel[2]; }
  // True when a window is the identity map of one input element (1x1, stride 1, no pads).
  bool isPointwise() const;
};

// Canonical form of a sliding window over a fully known input spatial shape.
Window3 slidingWindow3(const OpContext& ctx, const WindowAttrs& a, const std::vector<int64_t>& inSpatial);

// Floor / ceil of a / b for b > 0 and any sign of a.
inline int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && (a < 0)); }
inline int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

// Range [lo, hi) of window taps k in [0, kernel) whose input position
// o*stride - padBegin + k*dilation falls in [0, in). Empty when lo >= hi.
inline void validTaps(int64_t o, int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t padBegin,
                      int64_t& lo, int64_t& hi) {
  const int64_t start = o * stride - padBegin;
  lo = start >= 0 ? 0 : ceilDiv(-start, dilation);
  hi = ceilDiv(in - start, dilation);
  if (hi > kernel) hi = kernel;
  if (lo > kernel) lo = kernel;
}

// Range [lo, hi) of outputs o in [0, outExtent) for which tap k reads inside
// the input: 0 <= o*stride - padBegin + k*dilation < in.
inline void validOutputs(int64_t k, int64_t in, int64_t outExtent, int64_t stride, int64_t dilation,
                         int64_t padBegin, int64_t& lo, int64_t& hi) {
  const int64_t offset = k * dilation - padBegin;
  lo = offset >= 0 ? 0 : ceilDiv(-offset, stride);
  hi = ceilDiv(in - offset, stride);
  if (hi > outExtent) hi = outExtent;
  if (lo > outExtent) lo = outExtent;
  if (hi < lo) hi = lo;
}

}  // namespace rammer::ops
