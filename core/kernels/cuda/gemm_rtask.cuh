// gemm_rtask.cuh: one rTask of the tiled GEMM / batched MatMul and of the
// implicit-GEMM convolution (issue #44 item 1): where the rTask's tile and
// K chunk lie (core/kernels/tile_gemm.h's TileGrid), its operands' loaders,
// gemm_mainloop.cuh's K loop, and gemm_store.cuh's store; split-K with an
// epilogue ends in splitk.cuh's last-chunk epilogue. The generator only
// picks the types. Built on index_math.cuh, gemm_mainloop.cuh, splitk.cuh,
// conv_geometry.cuh and gemm_store.cuh.
#ifndef RAMMER_GEMM_RTASK_CUH
#define RAMMER_GEMM_RTASK_CUH

// rTasks batch-major, then K chunk, then tile row, then tile column
// (fastest); each GEMM is M x N x K, its K cut into chunks of KCHUNK.
template <long long M_, long long N_, long long K_, long long KCHUNK_, long long TILES_M_, long long TILES_N_,
          long long SPLIT_>
struct RammerTileGrid {
  enum : long long { M = M_, N = N_, K = K_, KCHUNK = KCHUNK_, TILES_M = TILES_M_, TILES_N = TILES_N_, SPLIT = SPLIT_ };
};

// The place of rTask `rtask_id` (T: gemm_mainloop.cuh's RammerGemmTile, G:
// a RammerTileGrid). Computed at the start and again in the store: the
// mainloop keeps no registers for it across the K loop.
template <class I, class T, class G>
struct RammerTilePlace {
  I tn, tm, ks, bb, m0, n0, kbeg, klen;
  __device__ __forceinline__ explicit RammerTilePlace(int rtask_id) {
    I t = rtask_id;
    tn = t % (I)G::TILES_N;
    t /= (I)G::TILES_N;
    tm = t % (I)G::TILES_M;
    t /= (I)G::TILES_M;
    ks = t % (I)G::SPLIT;
    bb = t / (I)G::SPLIT;
    m0 = tm * T::TILE_M;
    n0 = tn * T::TILE_N;
    kbeg = ks * (I)G::KCHUNK;
    klen = (I)G::K - kbeg < (I)G::KCHUNK ? (I)G::K - kbeg : (I)G::KCHUNK;
  }
};

// ---- operands ----
// A is strided: its element (row, k) at p[row * SMN + k * SK] from the
// tile's first row and k, p computed in rammer_gemm_rtask's own body (in a
// function of the operand's, NVCC gave squeezenet's stem convolution more
// spills under IOS). B's loader comes from make(): its rows from `row0`
// and K from `k0` of batch (group) bb at offset `off`.

// A matrix (A or B), or a 1x1 convolution's input channels (B).
template <long long SMN_, long long SK_>
struct RammerStrided {
  enum : long long { SMN = SMN_, SK = SK_, GROUP_ROWS = 0 };
  template <class I, int L, int TK>
  __device__ __forceinline__ static RammerStridedOperand<I, L, TK, SMN_, SK_> make(const float* base, I, I off, I row0,
                                                                                   I k0, I rows, I klen) {
    return RammerStridedOperand<I, L, TK, SMN_, SK_>(
        base + off + row0 * RammerLiteral<SMN_>::value + k0 * RammerLiteral<SK_>::value, rows, klen);
  }
};

// A convolution's weights [groups * ROWS][K] as A: group bb's rows,
// contiguous along k, found by one integer offset (bb * ROWS + row) * K.
template <long long ROWS, long long K>
struct RammerGroupRows {
  enum : long long { SMN = K, SK = 1, GROUP_ROWS = ROWS };
};

// A convolution's im2col columns over geometry G (conv_geometry.cuh).
template <class G>
struct RammerIm2col {
  template <class I, int L, int TK>
  __device__ __forceinline__ static RammerIm2colOperand<I, L, TK, G> make(const float* base, I, I off, I col0, I k0,
                                                                          I, I klen) {
    return RammerIm2colOperand<I, L, TK, G>(base + off, col0, k0, klen);
  }
};

// One rTask: A (rows M) and B (rows N) as operand types OA (RammerStrided,
// RammerGroupRows) and OB (RammerStrided, RammerIm2col) over pointers a and b; P a RammerGemmProblem; c its bias input (or null),
// ws the split-K workspace (or null), `extra` the epilogue's other inputs.
template <class I, class T, class G, class OA, class OB, class P, class... Reads>
__device__ __forceinline__ void rammer_gemm_rtask(int rtask_id, int tid, float* smem, const float* a, const float* b,
                                                  const float* c, float* out, float* ws,
                                                  RammerGemmInput<Reads>... extra) {
  const RammerTilePlace<I, T, G> at(rtask_id);
  I offA, offB;
  P::Batch::template offsets<I>(at.bb, offA, offB);
  RammerStridedOperand<I, T::MapA::L, T::TILE_K, OA::SMN, OA::SK> la(
      OA::GROUP_ROWS > 0 ? a + (at.bb * RammerLiteral<OA::GROUP_ROWS>::value + at.m0) * RammerLiteral<OA::SMN>::value + at.kbeg
                         : a + offA + at.m0 * RammerLiteral<OA::SMN>::value + at.kbeg * RammerLiteral<OA::SK>::value,
      (I)G::M - at.m0, at.klen);
  auto lb = OB::template make<I, T::MapB::L, T::TILE_K>(b, at.bb, offB, at.n0, at.kbeg, (I)G::N - at.n0, at.klen);
  auto store = [=](int mi, int ni, float v) {
    const RammerTilePlace<I, T, G> here(rtask_id);
    const I m = here.m0 + mi, n = here.n0 + ni;
    if (m >= (I)G::M || n >= (I)G::N) return;
    rammer_gemm_store<I, P, (G::SPLIT > 1), Reads...>(P::Output::template index<I>(here.bb, m, n), here.bb, here.ks, m,
                                                      n, v, c, out, extra...);
  };
  rammer_gemm_mainloop<T::TILE_M, T::TILE_N, T::TILE_K, T::REG_M, T::REG_N, T::LAYOUT_A, T::LAYOUT_B>(
      tid, smem, (int)(G::KCHUNK / T::TILE_K), la, lb, store);
  if constexpr (G::SPLIT > 1 && P::Epilogue::present) {
    auto finish = [=](int mi, int ni) {
      const RammerTilePlace<I, T, G> here(rtask_id);
      const I m = here.m0 + mi, n = here.n0 + ni;
      if (m >= (I)G::M || n >= (I)G::N) return;
      rammer_gemm_finish<I, P, Reads...>(P::Output::template index<I>(here.bb, m, n),
                                         P::Output::template element<I>(out, here.bb, m, n), out, extra...);
    };
    rammer_splitk_epilogue<T::TILE_M, T::TILE_N, T::NT>(
        tid, smem, ws + (at.bb * (I)G::TILES_M + at.tm) * (I)G::TILES_N + at.tn, (unsigned)G::SPLIT, finish);
  } else {
    (void)ws;
  }
}

#endif  // RAMMER_GEMM_RTASK_CUH
