#include "core/ops/nn/conv_im2col.h"

#include <algorithm>
#include <cstring>

namespace rammer::ops {

namespace {

// Calls row(kernelTap, dst row offset, src row offset, owLo, owHi) for every
// (tap, output row) whose input row exists, and zero(offset, count) for the
// stretches of output a tap never reads (padding). Offsets index a
// [kernelSize, outSize] block and one channel of the input. Shared by im2col,
// col2im and the depthwise kernel so the bounds logic lives once.
template <class Row, class Zero>
void forEachTapRow(const Window3& w, Row&& row, Zero&& zero) {
  const int64_t OD = w.out[0], OH = w.out[1], OW = w.out[2];
  const int64_t IH = w.in[1], IW = w.in[2];
  const int64_t plane = OH * OW, outSize = OD * plane;
  int64_t tap = 0;
  for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
    int64_t odLo, odHi;
    validOutputs(kd, w.in[0], OD, w.stride[0], w.dilation[0], w.padBegin[0], odLo, odHi);
    for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
      int64_t ohLo, ohHi;
      validOutputs(kh, IH, OH, w.stride[1], w.dilation[1], w.padBegin[1], ohLo, ohHi);
      for (int64_t kw = 0; kw < w.kernel[2]; ++kw, ++tap) {
        int64_t owLo, owHi;
        validOutputs(kw, IW, OW, w.stride[2], w.dilation[2], w.padBegin[2], owLo, owHi);
        const int64_t base = tap * outSize;
        zero(base, odLo * plane);
        for (int64_t od = odLo; od < odHi; ++od) {
          const int64_t id = od * w.stride[0] - w.padBegin[0] + kd * w.dilation[0];
          const int64_t planeBase = base + od * plane;
          zero(planeBase, ohLo * OW);
          for (int64_t oh = ohLo; oh < ohHi; ++oh) {
            const int64_t ih = oh * w.stride[1] - w.padBegin[1] + kh * w.dilation[1];
            const int64_t dst = planeBase + oh * OW;
            zero(dst, owLo);
            if (owLo < owHi) {
              const int64_t iw = owLo * w.stride[2] - w.padBegin[2] + kw * w.dilation[2];
              row(tap, dst + owLo, (id * IH + ih) * IW + iw, owHi - owLo);
            }
            zero(dst + owHi, OW - owHi);
          }
          zero(planeBase + ohHi * OW, (OH - ohHi) * OW);
        }
        zero(base + odHi * plane, (OD - odHi) * plane);
      }
    }
  }
}

}  // namespace

void im2col(const float* x, int64_t channels, const Window3& w, float* col) {
  const int64_t inSize = w.inSize(), block = w.kernelSize() * w.outSize(), sw = w.stride[2];
  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = x + c * inSize;
    float* cc = col + c * block;
    forEachTapRow(
        w,
        [&](int64_t, int64_t dst, int64_t src, int64_t n) {
          if (sw == 1) {
            std::memcpy(cc + dst, xc + src, static_cast<size_t>(n) * sizeof(float));
          } else {
            float* d = cc + dst;
            const float* s = xc + src;
            for (int64_t i = 0; i < n; ++i) d[i] = s[i * sw];
          }
        },
        [&](int64_t dst, int64_t n) {
          if (n > 0) std::fill_n(cc + dst, n, 0.0f);
        });
  }
}

void col2imAdd(const float* col, int64_t channels, const Window3& w, float* y) {
  const int64_t inSize = w.inSize(), block = w.kernelSize() * w.outSize(), sw = w.stride[2];
  for (int64_t c = 0; c < channels; ++c) {
    float* yc = y + c * inSize;
    const float* cc = col + c * block;
    forEachTapRow(
        w,
        [&](int64_t, int64_t src, int64_t dst, int64_t n) {
          const float* s = cc + src;
          float* d = yc + dst;
          for (int64_t i = 0; i < n; ++i) d[i * sw] += s[i];
        },
        [](int64_t, int64_t) {});
  }
}

void depthwiseConvAdd(const float* x, const float* weight, int64_t outChannels, int64_t multiplier, const Window3& w,
                      float* y) {
  const int64_t inSize = w.inSize(), outSize = w.outSize(), kernelSize = w.kernelSize(), sw = w.stride[2];
  for (int64_t m = 0; m < outChannels; ++m) {
    const float* xc = x + (m / multiplier) * inSize;
    const float* wm = weight + m * kernelSize;
    float* ym = y + m * outSize;
    forEachTapRow(
        w,
        [&](int64_t tap, int64_t dst, int64_t src, int64_t n) {
          const float k = wm[tap];
          float* d = ym + (dst - tap * outSize);
          const float* s = xc + src;
          if (sw == 1) {
            for (int64_t i = 0; i < n; ++i) d[i] += k * s[i];
          } else {
            for (int64_t i = 0; i < n; ++i) d[i] += k * s[i * sw];
          }
        },
        [](int64_t, int64_t) {});
  }
}

}  // namespace rammer::ops
