// scan.cuh: CumSum along one axis, a line per loop step (issue #44 item 1:
// the body core/kernels/scan_kernels.cpp used to print). Line i has LENGTH
// elements INNER apart from (i / INNER) * LENGTH * INNER + i % INNER; J
// indexes the input. EXCLUSIVE: each output leaves its own input out;
// REVERSE: the sums run from the line's end.
#ifndef RAMMER_SCAN_CUH
#define RAMMER_SCAN_CUH

template <class I, int THREADS, long long CHUNK, long long TOTAL, class J, long long LENGTH, long long INNER,
          bool EXCLUSIVE, bool REVERSE>
__device__ __forceinline__ void rammer_cumsum(int rtask_id, int tid, float* smem, const float* __restrict__ in0,
                                              float* __restrict__ out0) {
  (void)smem;
  constexpr auto n = RammerLiteral<LENGTH>::value;
  constexpr auto inner = RammerLiteral<INNER>::value;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid, [&](I i) {
    const J base = (J)(i / (I)INNER) * n * inner + i % (I)INNER;
    float sum = 0.0f;
    for (J t = 0; t < n; ++t) {
      const J at = base + (REVERSE ? (n - 1 - t) : t) * inner;
      const float x = in0[at];
      if (EXCLUSIVE) {
        out0[at] = sum;
        sum += x;
      } else {
        sum += x;
        out0[at] = sum;
      }
    }
  });
}

#endif  // RAMMER_SCAN_CUH
