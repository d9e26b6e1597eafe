// trilu.cuh: Trilu, the upper (UPPER) or lower triangle of each [ROWS, COLS]
// matrix from diagonal K on, zeros elsewhere (issue #44 item 1: the body
// core/kernels/mask_kernels.cpp used to print).
#ifndef RAMMER_TRILU_CUH
#define RAMMER_TRILU_CUH

template <class I, int THREADS, long long CHUNK, long long TOTAL, long long ROWS, long long COLS, long long K,
          bool UPPER>
__device__ __forceinline__ void rammer_trilu(int rtask_id, int tid, float* smem, const float* __restrict__ in0,
                                             float* __restrict__ out0) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid, [&](I i) {
    const I c = i % (I)COLS, r = (i / (I)COLS) % (I)ROWS;
    const bool keep = UPPER ? c - r >= RammerLiteral<K>::value : c - r <= RammerLiteral<K>::value;
    out0[i] = keep ? in0[i] : 0.0f;
  });
}

#endif  // RAMMER_TRILU_CUH
