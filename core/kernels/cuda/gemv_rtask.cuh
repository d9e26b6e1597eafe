// gemv_rtask.cuh: one rTask of the skinny GEMM (issue #44 item 1): COLS
// columns of Y[M, N] = A[M, K] x W over one K chunk, by gemv.cuh's loops,
// stored by gemm_store.cuh (split-K: added into the zeroed output, the
// epilogue by the chunk that arrives last, splitk.cuh). Built on gemv.cuh,
// splitk.cuh, index_math.cuh and gemm_store.cuh.
#ifndef RAMMER_GEMV_RTASK_CUH
#define RAMMER_GEMV_RTASK_CUH

// rTasks batch-major, then K chunk, then column block (fastest). KMAJOR: W
// is W[n][k] (rammer_gemv_kmajor, PER columns per warp), else W[k][n]
// (rammer_gemv_nmajor, PER columns per thread); U unrolls the K loop. A(m,
// k) at a[m * LDA + k], W at stride LDW along n (K-major) or k. P: a
// RammerGemmProblem; c, ws, extra as rammer_gemm_rtask's.
template <class I, bool KMAJOR, int M, int PER, int U, long long LDA, long long LDW, long long N, long long K,
          long long KCHUNK, long long TILES_N, long long SPLIT, long long COLS, class P, class... Reads>
__device__ __forceinline__ void rammer_gemv_rtask(int rtask_id, int tid, float* smem, const float* a, const float* w,
                                                  const float* c, float* out, float* ws,
                                                  RammerGemmInput<Reads>... extra) {
  I t = rtask_id;
  const I tn = t % (I)TILES_N;
  t /= (I)TILES_N;
  const I ks = t % (I)SPLIT;
  const I bb = t / (I)SPLIT;
  const I n0 = tn * (I)COLS, kbeg = ks * (I)KCHUNK;
  const I klen = (I)K - kbeg < (I)KCHUNK ? (I)K - kbeg : (I)KCHUNK;
  const I cols = (I)N - n0 < (I)COLS ? (I)N - n0 : (I)COLS;
  I offA, offB;
  P::Batch::template offsets<I>(bb, offA, offB);
  // Output element (m, n) of a row-major [batches][M][N] (the GEMV's
  // problems are GEMMs), its batch's offset kept from here on as the
  // written-out code did (a register fewer in a split-K epilogue).
  const I offY = bb * (I)(M * N);
  auto store = [=](int m, int col, float v) {
    const I n = n0 + col;
    rammer_gemm_store<I, P, (SPLIT > 1), Reads...>(offY + m * (I)N + n, bb, ks, (I)m, n, v, c, out, extra...);
  };
  if constexpr (KMAJOR)
    rammer_gemv_kmajor<M, PER, U, LDA, LDW, I>(tid, smem, a + offA + kbeg,
                                               w + offB + n0 * RammerLiteral<LDW>::value + kbeg, cols, klen, store);
  else
    rammer_gemv_nmajor<M, PER, U, LDA, LDW, I>(tid, a + offA + kbeg, w + offB + kbeg * RammerLiteral<LDW>::value + n0,
                                               cols, klen, store);
  if constexpr (SPLIT > 1 && P::Epilogue::present) {
    auto finish = [=](int m, int col) {
      const I n = n0 + col;
      if (col >= cols) return;
      rammer_gemm_finish<I, P, Reads...>(offY + m * (I)N + n, out + offY + m * (I)N + n, out, extra...);
    };
    rammer_splitk_epilogue<M, (int)COLS, 256>(tid, smem, ws + bb * (I)TILES_N + tn, (unsigned)SPLIT, finish);
  } else {
    (void)smem;
    (void)ws;
  }
}

#endif  // RAMMER_GEMV_RTASK_CUH
