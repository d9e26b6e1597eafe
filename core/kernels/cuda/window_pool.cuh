// window_pool.cuh: MaxPool and AveragePool over 1-D to 3-D windows, an
// output element per loop step (issue #44 item 1: the body the generator in
// core/kernels/pool_kernels.cpp used to print; it now emits only the
// instantiation). Built on element_loop.cuh and index_math.cuh.
#ifndef RAMMER_WINDOW_POOL_CUH
#define RAMMER_WINDOW_POOL_CUH

// One spatial axis of the window (a 1-D or 2-D pool has leading axes of 1):
// output and input extent, window size, stride, padding at either end and
// dilation.
template <int OUT, int IN, int KERNEL, int STRIDE, int PAD_BEGIN, int PAD_END, int DILATION>
struct RammerWindowAxis {
  static constexpr int out = OUT, in = IN, kernel = KERNEL, stride = STRIDE, padBegin = PAD_BEGIN, padEnd = PAD_END,
                       dilation = DILATION;
};

// With count_include_pad, an average divides by the window's positions
// inside the padded input along axis A starting at s.
template <class A>
__device__ __forceinline__ int rammer_window_padded_count(int s) {
  int h = (A::in + A::padEnd - s + (A::dilation - 1)) / A::dilation;
  h = h > A::kernel ? A::kernel : h;
  return h > 0 ? h : 0;
}

// Element i of the [planes, OUT_SIZE] output reads plane i / OUT_SIZE of
// IN_SIZE input elements. MAX: NaN wins, an empty window gives -inf;
// otherwise the mean of the window's elements inside the input (or, with
// INCLUDE_PAD, over its positions inside the padded input).
template <class I, int THREADS, long long CHUNK, long long TOTAL, bool MAX, bool INCLUDE_PAD, long long OUT_SIZE,
          long long IN_SIZE, class A0, class A1, class A2>
__device__ __forceinline__ void rammer_window_pool(int rtask_id, int tid, float* smem, const float* __restrict__ in0,
                                                   float* __restrict__ out0) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid, [&](I i) {
    const I p = i / (I)OUT_SIZE;
    I r = i % (I)OUT_SIZE;
    const int o2 = (int)(r % (I)A2::out);
    r /= (I)A2::out;
    const int o1 = (int)(r % (I)A1::out);
    r /= (I)A1::out;
    const int o0 = (int)r;
    const int s0 = o0 * A0::stride - A0::padBegin;
    const int s1 = o1 * A1::stride - A1::padBegin;
    const int s2 = o2 * A2::stride - A2::padBegin;
    const float* xp = in0 + p * RammerLiteral<IN_SIZE>::value;
    float best = -INFINITY, sum = 0.0f;
    bool found = false;
    int count = 0;
    for (int k0 = 0; k0 < A0::kernel; ++k0) {
      const int i0 = s0 + k0 * A0::dilation;
      if (i0 < 0 || i0 >= A0::in) continue;
      for (int k1 = 0; k1 < A1::kernel; ++k1) {
        const int i1 = s1 + k1 * A1::dilation;
        if (i1 < 0 || i1 >= A1::in) continue;
        for (int k2 = 0; k2 < A2::kernel; ++k2) {
          const int i2 = s2 + k2 * A2::dilation;
          if (i2 < 0 || i2 >= A2::in) continue;
          const float v = xp[(i0 * A1::in + i1) * A2::in + i2];
          if (MAX) {
            if (!found || v > best || (isnan(v) && !isnan(best))) {
              best = v;
              found = true;
            }
          } else {
            sum += v;
            ++count;
          }
        }
      }
    }
    if (MAX) {
      out0[i] = best;
    } else {
      if (INCLUDE_PAD)
        count = rammer_window_padded_count<A0>(s0) * rammer_window_padded_count<A1>(s1) *
                rammer_window_padded_count<A2>(s2);
      out0[i] = count > 0 ? sum / (float)count : 0.0f;
    }
  });
}

#endif  // RAMMER_WINDOW_POOL_CUH
