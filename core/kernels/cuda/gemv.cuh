// gemv.cuh: the skinny GEMM family, Y[M, N] = A[M, K] x W for M <= 16
// (batch-1 Linear layers, RNN projections, attention at one token), issue
// #27 item 4. Streaming W once is the whole cost, so the loops are built to
// keep many 16-byte loads in flight; the tile GEMM would idle 3/4 to 15/16
// of its threads on such shapes. One rTask is 256 threads over a block of
// columns and one chunk of K (split-K: chunks add into outputs zeroed
// first). Two layouts of W:
//   K-major (W[n][k], a Gemm with transB, PyTorch's Linear weight): a warp
//     owns R columns, its lanes read 16 bytes each along k (512 bytes per
//     warp instruction), and the warp's partial sums meet in shared memory;
//   N-major (W[k][n], a MatMul weight): a thread owns C consecutive columns
//     and walks k, a warp reading 32 x 4C consecutive bytes per k.
// A's M rows are small and read by every warp: they stay in L1/L2.
// Compiled for CUDA, HIP and the host target alike (core/kernels/
// cuda_library.h).
#ifndef RAMMER_GEMV_CUH
#define RAMMER_GEMV_CUH

// 16 bytes from global memory, when the address allows (else 4 at a time).
struct rammer_g4 {
  float x, y, z, w;
};
__device__ __forceinline__ rammer_g4 rammer_ldg4(const float* p) {
#if defined(RAMMER_TARGET_HOST)
  return rammer_g4{p[0], p[1], p[2], p[3]};
#else
  if (((unsigned long long)p & 15) == 0) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    return rammer_g4{v.x, v.y, v.z, v.w};
  }
  return rammer_g4{p[0], p[1], p[2], p[3]};
#endif
}

// K-major: W[n][k] at w[n * LDW + k], A[m][k] at a[m * LDA + k]; both point
// at the rTask's first column / first k. `store(m, c, v)` gets the sum of
// column c (< WARPS * R, local to the block) for row m; columns at or past
// `cols` and k at or past `kLen` are skipped. Uses WARPS * 32 * M * R floats
// of shared memory; two __syncthreads.
template <int M, int R, int U, long long LDA, long long LDW, class I, class ST>
__device__ __forceinline__ void rammer_gemv_kmajor(int tid, float* smem, const float* a, const float* w, I cols, I kLen,
                                                   ST& store) {
  constexpr int WARPS = 8, OUT = M * R;
  const bool active = tid < WARPS * 32;
  const int warp = tid / 32, lane = tid % 32;
  float acc[M][R];
#pragma unroll
  for (int m = 0; m < M; ++m)
#pragma unroll
    for (int r = 0; r < R; ++r) acc[m][r] = 0.0f;
  if (active) {
    const float* wr[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const I col = (I)warp * R + r;
      wr[r] = w + (col < cols ? col : 0) * (I)LDW;  // a column past the edge reads column 0, never stored
    }
    const I whole = kLen & ~(I)3;
#pragma unroll U
    for (I k = (I)lane * 4; k < whole; k += 128) {
      rammer_g4 wv[R];
#pragma unroll
      for (int r = 0; r < R; ++r) wv[r] = rammer_ldg4(wr[r] + k);
#pragma unroll
      for (int m = 0; m < M; ++m) {
        const rammer_g4 av = rammer_ldg4(a + m * (I)LDA + k);
#pragma unroll
        for (int r = 0; r < R; ++r)
          acc[m][r] = fmaf(av.x, wv[r].x, fmaf(av.y, wv[r].y, fmaf(av.z, wv[r].z, fmaf(av.w, wv[r].w, acc[m][r]))));
      }
    }
    // The last kLen % 4 k, one per lane.
    const I k = whole + lane;
    if (k < kLen) {
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int r = 0; r < R; ++r) acc[m][r] = fmaf(a[m * (I)LDA + k], wr[r][k], acc[m][r]);
    }
    // Lane partials to shared memory, [warp][output][lane].
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
      for (int r = 0; r < R; ++r) smem[(warp * OUT + m * R + r) * 32 + lane] = acc[m][r];
  }
  __syncthreads();
  // Lane j of each warp sums output j of its warp (OUT <= 32).
  if (active && lane < OUT) {
    const float* p = smem + (warp * OUT + lane) * 32;
    float v = 0.0f;
#pragma unroll
    for (int j = 0; j < 32; ++j) v += p[(j + lane) % 32];  // rotated: lanes hit different banks
    const int m = lane / R, r = lane % R;
    const I col = (I)warp * R + r;
    if (col < cols) store(m, (int)col, v);
  }
  __syncthreads();
}

// N-major: W[k][n] at w[k * LDW + n], A[m][k] at a[m * LDA + k], pointing
// at the rTask's first k and first column. Thread t owns columns
// [t * C, t * C + C); no shared memory, no barrier.
template <int M, int C, int U, long long LDA, long long LDW, class I, class ST>
__device__ __forceinline__ void rammer_gemv_nmajor(int tid, const float* a, const float* w, I cols, I kLen, ST& store) {
  constexpr int THREADS = 256;
  if (tid >= THREADS) return;
  const I c0 = (I)tid * C;
  if (c0 >= cols) return;
  float acc[M][C];
#pragma unroll
  for (int m = 0; m < M; ++m)
#pragma unroll
    for (int c = 0; c < C; ++c) acc[m][c] = 0.0f;
  const bool whole = c0 + C <= cols;
  (void)whole;
#pragma unroll U
  for (I k = 0; k < kLen; ++k) {
    float wv[C];
    const float* row = w + k * (I)LDW + c0;
    if constexpr (C == 4) {
      if (whole) {
        const rammer_g4 v = rammer_ldg4(row);
        wv[0] = v.x, wv[1] = v.y, wv[2] = v.z, wv[3] = v.w;
      } else {
#pragma unroll
        for (int c = 0; c < C; ++c) wv[c] = c0 + c < cols ? row[c] : 0.0f;
      }
    } else {
#pragma unroll
      for (int c = 0; c < C; ++c) wv[c] = c0 + c < cols ? row[c] : 0.0f;
    }
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const float av = a[m * (I)LDA + k];
#pragma unroll
      for (int c = 0; c < C; ++c) acc[m][c] = fmaf(av, wv[c], acc[m][c]);
    }
  }
#pragma unroll
  for (int m = 0; m < M; ++m)
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (c0 + c < cols) store(m, (int)(c0 + c), acc[m][c]);
}

// The recurrent product of an RNN cell with the gate arithmetic as its
// epilogue (core/ops/rnn/cell_ops.h, CellRecurrence): for the rTask's
// columns j < cols (at most J, from its first j) of each of BLOCKS gate
// blocks H columns apart, hr[blk] = sum_k A[m][k] * W[k][blk * H + j] for
// every row m < M, then `cell(m, j, hr)` once per output on thread m * J + j.
// W is N-major (W[k][n] at w[k * LDW + n], w at the rTask's first column),
// A[m][k] at a[m * LDA + k]. The 256 threads are 256 / J groups of J lanes:
// group g walks k = g, g + 256 / J, ..., lane j reads column j of each block
// (J consecutive floats per block per k), so every group keeps BLOCKS loads
// in flight and K is split across the groups without a second rTask. The
// groups' partials meet in shared memory, [output][thread] (a store of
// consecutive words per warp): 256 * M * BLOCKS floats; two __syncthreads.
template <int M, int BLOCKS, int J, int U, long long LDA, long long LDW, long long H, class I, class CELL>
__device__ __forceinline__ void rammer_gemv_gates(int tid, float* smem, const float* a, const float* w, I cols, I kLen,
                                                  CELL& cell) {
  constexpr int THREADS = 256, G = THREADS / J, OUT = M * BLOCKS;
  if (tid < THREADS) {
    const int g = tid / J, lane = tid % J;
    float acc[OUT];
#pragma unroll
    for (int o = 0; o < OUT; ++o) acc[o] = 0.0f;
    const float* wc = w + (lane < cols ? lane : 0);  // a column past the edge reads column 0, never stored
#pragma unroll U
    for (I k = (I)g; k < kLen; k += G) {
      float wv[BLOCKS];
#pragma unroll
      for (int b = 0; b < BLOCKS; ++b) wv[b] = wc[k * (I)LDW + b * (I)H];
#pragma unroll
      for (int m = 0; m < M; ++m) {
        const float av = a[m * (I)LDA + k];
#pragma unroll
        for (int b = 0; b < BLOCKS; ++b) acc[m * BLOCKS + b] = fmaf(av, wv[b], acc[m * BLOCKS + b]);
      }
    }
#pragma unroll
    for (int o = 0; o < OUT; ++o) smem[o * THREADS + tid] = acc[o];
  }
  __syncthreads();
  if (tid < M * J) {
    const int m = tid / J, j = tid % J;
    float hr[BLOCKS];
#pragma unroll
    for (int b = 0; b < BLOCKS; ++b) {
      const float* p = smem + (m * BLOCKS + b) * THREADS + j;
      float v = 0.0f;
      for (int g = 0; g < G; ++g) v += p[g * J];
      hr[b] = v;
    }
    if (j < cols) cell(m, j, (const float*)hr);
  }
  __syncthreads();
}

#endif  // RAMMER_GEMV_CUH
