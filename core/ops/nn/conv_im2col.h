#pragma once
// Lowering of window ops to matrix products over a canonical 3-D window
// (see Window3): im2col gathers every kernel tap of every output position
// into a [channels * kernelSize, outSize] matrix, col2im scatters such a
// matrix back (summing overlaps) for ConvTranspose.
#include <cstdint>

#include "core/ops/nn/conv_geometry.h"

namespace rammer::ops {

// x: [channels, in...]; col: [channels * kernelSize, outSize], fully written
// (padding taps are zeros).
void im2col(const float* x, int64_t channels, const Window3& w, float* col);

// col: [channels * kernelSize, outSize]; adds each entry into y: [channels,
// in...] at the position it was gathered from (taps in the padding are dropped).
void col2imAdd(const float* col, int64_t channels, const Window3& w, float* y);

// Depthwise convolution without lowering: y[m] += sum over taps of
// weight[m] * x[m / multiplier] for each output channel m (group == input
// channels). x: [inChannels, in...], weight: [outChannels, kernelSize],
// y: [outChannels, out...], accumulated into.
void depthwiseConvAdd(const float* x, const float* weight, int64_t outChannels, int64_t multiplier, const Window3& w,
                      float* y);

}  // namespace rammer::ops
