// gemm_mainloop.cuh: the K loop shared by the GEMM, batched MatMul and
// implicit-GEMM convolution rKernels (issue #27 item 3). Compiled into
// rammer as text (core/kernels/cuda_library.h) and emitted once into every
// generated program that uses it; the generators only write the operand
// loaders and an instantiation with the shapes as template arguments.
//
// One rTask computes a TM x TN output tile with NT = (TM/RM) x (TN/RN)
// threads, each owning RM x RN accumulators as (RM/4) x (RN/4) fragments of
// 4 x 4, so every fragment is one 16-byte shared load per operand per k.
// Per K step of TK:
//   1. every thread fetches its next L = TK*TM/NT elements of A (and of B)
//      from global memory into registers (all loads issued before any use);
//   2. it computes the current step from shared memory;
//   3. it stores the fetched elements into the other shared buffer;
//   4. one __syncthreads.
// Shared memory holds two buffers of As[TK][TM+PAD] and Bs[TK][TN+PAD]. The
// padding makes the operand stores and the fragment loads conflict-free
// (tests/core/kernels/mainloop_banks_test.cpp counts them over a warp).
//
// The same text compiles for CUDA, HIP and the host target (its prelude
// gives the CUDA names a CPU meaning), so the host runs of CI execute it.
#ifndef RAMMER_GEMM_MAINLOOP_CUH
#define RAMMER_GEMM_MAINLOOP_CUH

// Shared memory through 32-bit addresses: NVRTC otherwise addresses the
// generic `smem` pointer with 64-bit registers in every access, which costs
// the mainloop the registers it needs for its accumulators. `RammerSmem`
// is a word offset into the vEU's dynamic shared memory.
struct rammer_f4 {
  float x, y, z, w;
};
#if defined(RAMMER_TARGET_CUDA)
struct RammerSmem {
  unsigned base;  // shared-window byte address of word 0
  __device__ __forceinline__ explicit RammerSmem(float* p) : base((unsigned)__cvta_generic_to_shared(p)) {}
  __device__ __forceinline__ void st(int word, float v) const {
    asm volatile("st.shared.f32 [%0], %1;" : : "r"(base + 4u * (unsigned)word), "f"(v) : "memory");
  }
  __device__ __forceinline__ rammer_f4 ld4(int word) const {
    rammer_f4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(base + 4u * (unsigned)word)
                 : "memory");
    return v;
  }
};
#else
struct RammerSmem {
  float* base;
  __device__ __forceinline__ explicit RammerSmem(float* p) : base(p) {}
  __device__ __forceinline__ void st(int word, float v) const { base[word] = v; }
  __device__ __forceinline__ rammer_f4 ld4(int word) const {
    const float* p = base + word;
    return rammer_f4{p[0], p[1], p[2], p[3]};
  }
};
#endif

// Where a thread's operand elements sit in the TK x TM tile of an operand
// (TM: the tile's M for A, its N for B). Every thread owns one row `mn` of
// the tile and L consecutive k from `kq`:
//   K-major operands (contiguous along k, e.g. row-major A): TK/L threads
//   share a row, so a warp reads whole 32-byte sectors;
//   MN-major operands (contiguous along m or n, e.g. row-major B or an
//   im2col column): consecutive threads take consecutive rows.
template <int TM, int TK, int NT, bool KMAJOR>
struct RammerOperandMap {
  enum : int { L = TK * TM / NT };  // elements per thread per K step (an enum: no device global)
  static_assert(TK * TM % NT == 0, "the tile must split evenly over the threads");
  static_assert(KMAJOR ? (TK % L == 0) : (NT % TM == 0), "no even split of the tile rows over the threads");
  // Row padding of the shared tile, in floats: a multiple of 4 (16-byte
  // fragments stay aligned) that spreads a warp's stores over all banks.
  enum : int { PAD = KMAJOR ? 4 : (TM == 16 ? 8 : 4), LD = TM + PAD };  // LD: floats per shared row (one k)
  __host__ __device__ static constexpr int row(int tid) { return KMAJOR ? tid / (TK / L) : tid % TM; }
  __host__ __device__ static constexpr int kq(int tid) { return KMAJOR ? (tid % (TK / L)) * L : (tid / TM) * L; }
  // Word index of element i (< L) of thread `tid` in one shared buffer.
  __host__ __device__ static constexpr int store(int tid, int i) { return (kq(tid) + i) * LD + row(tid); }
};

// The thread layout of the compute phase: TX threads along N.
template <int TM, int TN, int RM, int RN>
struct RammerFragments {
  static_assert(RM % 4 == 0 && RN % 4 == 0, "fragments are 4 x 4");
  enum : int { TX = TN / RN, TY = TM / RM, FM = RM / 4, FN = RN / 4 };
  // First row (column) of fragment f of thread coordinate ty (tx).
  __host__ __device__ static constexpr int row(int ty, int f) { return f * 4 * TY + ty * 4; }
  __host__ __device__ static constexpr int col(int tx, int f) { return f * 4 * TX + tx * 4; }
};

template <int TM, int TN, int TK, int RM, int RN, bool A_KMAJOR, bool B_KMAJOR>
struct RammerGemmTile {
  enum : int { NT = (TM / RM) * (TN / RN) };
  using MapA = RammerOperandMap<TM, TK, NT, A_KMAJOR>;
  using MapB = RammerOperandMap<TN, TK, NT, B_KMAJOR>;
  using Frag = RammerFragments<TM, TN, RM, RN>;
  enum : int {
    A_WORDS = TK * MapA::LD,
    B_WORDS = TK * MapB::LD,
    BUFFER_WORDS = A_WORDS + B_WORDS,
    SHARED_WORDS = 2 * BUFFER_WORDS  // double-buffered
  };
};

// The loop. `A` and `B` are loaders with
//   void start(I mn, I k): the thread's row and first k (within the tile)
//   void fetch(float (&v)[L]): v[i] = element (mn, k + i), 0 outside
//   void next(): k += TK
// and `store(m, n, v)` receives every accumulator (m, n local to the
// tile's origin, which the store knows; it skips those past the matrix
// edge). Threads tid >= NT reach every barrier and do nothing else; there
// are steps + 1 barriers.
template <int TM, int TN, int TK, int RM, int RN, bool A_KMAJOR, bool B_KMAJOR, class LA, class LB, class ST>
__device__ __forceinline__ void rammer_gemm_mainloop(int tid, float* smem, int steps, LA& A, LB& B, ST& store) {
  using T = RammerGemmTile<TM, TN, TK, RM, RN, A_KMAJOR, B_KMAJOR>;
  using MA = typename T::MapA;
  using MB = typename T::MapB;
  using F = typename T::Frag;
  const bool active = tid < T::NT;
  const int t = active ? tid : 0;
  A.start(MA::row(t), MA::kq(t));
  B.start(MB::row(t), MB::kq(t));
  float va[MA::L], vb[MB::L];
  float acc[RM][RN];
#pragma unroll
  for (int r = 0; r < RM; ++r)
#pragma unroll
    for (int c = 0; c < RN; ++c) acc[r][c] = 0.0f;
  const int tx = t % F::TX, ty = t / F::TX;
  const RammerSmem sh(smem);

  if (active) {
    A.fetch(va);
    B.fetch(vb);
#pragma unroll
    for (int i = 0; i < MA::L; ++i) sh.st(MA::store(t, i), va[i]);
#pragma unroll
    for (int i = 0; i < MB::L; ++i) sh.st(T::A_WORDS + MB::store(t, i), vb[i]);
  }
  __syncthreads();
  // Not unrolled: a short K (a stem convolution's 27) would otherwise be
  // unrolled whole, and the copies' registers spill.
#pragma unroll 1
  for (int s = 0; s < steps; ++s) {
    const int as = (s & 1) * T::BUFFER_WORDS, bs = as + T::A_WORDS;
    const bool more = s + 1 < steps;
    if (active && more) {
      A.next();
      B.next();
      A.fetch(va);
      B.fetch(vb);
    }
    if (active) {
#pragma unroll
      for (int kk = 0; kk < TK; ++kk) {
        float a[RM], b[RN];
#pragma unroll
        for (int f = 0; f < F::FM; ++f) {
          const rammer_f4 v = sh.ld4(as + kk * MA::LD + F::row(ty, f));
          a[4 * f] = v.x, a[4 * f + 1] = v.y, a[4 * f + 2] = v.z, a[4 * f + 3] = v.w;
        }
#pragma unroll
        for (int f = 0; f < F::FN; ++f) {
          const rammer_f4 v = sh.ld4(bs + kk * MB::LD + F::col(tx, f));
          b[4 * f] = v.x, b[4 * f + 1] = v.y, b[4 * f + 2] = v.z, b[4 * f + 3] = v.w;
        }
#pragma unroll
        for (int r = 0; r < RM; ++r)
#pragma unroll
          for (int c = 0; c < RN; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
      }
      if (more) {
        const int na = ((s + 1) & 1) * T::BUFFER_WORDS;
#pragma unroll
        for (int i = 0; i < MA::L; ++i) sh.st(na + MA::store(t, i), va[i]);
#pragma unroll
        for (int i = 0; i < MB::L; ++i) sh.st(na + T::A_WORDS + MB::store(t, i), vb[i]);
      }
    }
    __syncthreads();
  }
  if (!active) return;
#pragma unroll
  for (int fr = 0; fr < F::FM; ++fr)
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int fc = 0; fc < F::FN; ++fc)
#pragma unroll
        for (int c = 0; c < 4; ++c) store(F::row(ty, fr) + r, F::col(tx, fc) + c, acc[4 * fr + r][4 * fc + c]);
}

// A strided operand: element (mn, k) of the rTask's tile at
// p[mn * SMN + k * SK], p pointing at the tile's first row and first k;
// rows at or past `rows` and k at or past `kLen` read 0.
template <class I, int L, int TK, long long SMN, long long SK>
struct RammerStridedOperand {
  const float* p;
  I rows;
  I left;  // k of the tile from the thread's current one on (<= 0: none)
  __device__ __forceinline__ RammerStridedOperand(const float* tile, I tileRows, I tileK)
      : p(tile), rows(tileRows), left(tileK) {}
  __device__ __forceinline__ void start(I row, I kfirst) {
    left = row < rows ? left - kfirst : 0;  // a row past the edge reads only zeros
    p += row * (I)SMN + kfirst * (I)SK;
  }
  __device__ __forceinline__ void fetch(float (&v)[L]) {
#if !defined(RAMMER_TARGET_HOST)
    // Contiguous along k, whole and aligned: 16- or 8-byte loads.
    if constexpr (SK == 1 && L % 2 == 0) {
      if (left >= L && ((unsigned long long)p & (L % 4 == 0 ? 15 : 7)) == 0) {
        fetchVector(v);
        return;
      }
    }
#endif
#pragma unroll
    for (int i = 0; i < L; ++i) v[i] = i < left ? p[i * (I)SK] : 0.0f;
  }
#if !defined(RAMMER_TARGET_HOST)
  __device__ __forceinline__ void fetchVector(float (&v)[L]) {
    if constexpr (L % 4 == 0) {
#pragma unroll
      for (int i = 0; i < L; i += 4) {
        const float4 w = *reinterpret_cast<const float4*>(p + i);
        v[i] = w.x, v[i + 1] = w.y, v[i + 2] = w.z, v[i + 3] = w.w;
      }
    } else {
#pragma unroll
      for (int i = 0; i < L; i += 2) {
        const float2 w = *reinterpret_cast<const float2*>(p + i);
        v[i] = w.x, v[i + 1] = w.y;
      }
    }
  }
#endif
  __device__ __forceinline__ void next() {
    left -= TK;
    p += TK * (I)SK;
  }
};

// The im2col operand of an implicit-GEMM convolution (B: K x N with
// k = (input channel, kd, kh, kw) and n = (image, od, oh, ow) of one
// group): element (n, k) reads the input at the window tap, 0 in the
// padding. G holds the geometry as enum constants: CIN, CG (channels per
// group), ID/IH/IW, OD/OH/OW, KD/KH/KW, SD/SH/SW (strides), LD/LH/LW
// (dilations), PD/PH/PW (leading pads), N (columns: images x outputs).
// The thread's column is fixed; its k walks by counters carried over
// kw -> kh -> kd -> c, so the K loop never divides.
template <class I, int L, int TK, class G>
struct RammerIm2colOperand {
  const float* x;  // the group's first input channel; start() moves it to the thread's image
  I left;          // k of the rTask from the thread's current one on (<= 0: none)
  I col;           // the tile's first column, then the thread's
  I kBegin;        // the rTask's first k (split-K)
  I d0, h0, w0;    // the window's origin in the input (may be negative)
  int c, kd, kh, kw;
  __device__ __forceinline__ RammerIm2colOperand(const float* groupInput, I tileN0, I kFirst, I tileK)
      : x(groupInput), left(tileK), col(tileN0), kBegin(kFirst), d0(0), h0(0), w0(0), c(0), kd(0), kh(0), kw(0) {}
  __device__ __forceinline__ void start(I row, I kfirst) {
    col += row;
    left -= kfirst;
    if (col >= (I)G::N) {
      left = 0;  // a column past the edge reads only zeros
      return;
    }
    const I OS = (I)G::OD * G::OH * G::OW;
    const I img = col / OS, q = col % OS;
    // (1-D and 2-D convolutions have unit leading dims: constants here.)
    const I ow = G::OW == 1 ? 0 : q % G::OW;
    const I oh = G::OH == 1 ? 0 : (q / G::OW) % G::OH;
    const I od = G::OD == 1 ? 0 : q / ((I)G::OW * G::OH);
    x += img * (I)G::CIN * ((I)G::ID * G::IH * G::IW);
    d0 = od * G::SD - G::PD;
    h0 = oh * G::SH - G::PH;
    w0 = ow * G::SW - G::PW;
    // The thread's first k, split once (outside the K loop).
    const I kabs = kBegin + kfirst;
    const int ks = (int)G::KD * G::KH * G::KW;
    c = (int)(kabs / ks);
    const int tap = (int)(kabs % ks);
    kw = G::KW == 1 ? 0 : tap % G::KW;
    kh = G::KH == 1 ? 0 : (tap / G::KW) % G::KH;
    kd = G::KD == 1 ? 0 : tap / (G::KW * G::KH);
  }
  __device__ __forceinline__ float at(int cc, int dd, int hh, int ww) const {
    const I id = d0 + dd * G::LD, ih = h0 + hh * G::LH, iw = w0 + ww * G::LW;
    if (id < 0 || id >= G::ID || ih < 0 || ih >= G::IH || iw < 0 || iw >= G::IW) return 0.0f;
    return x[(I)cc * ((I)G::ID * G::IH * G::IW) + (id * G::IH + ih) * G::IW + iw];
  }
  // Moves (cc, dd, hh, ww) on by `by` taps.
  __device__ __forceinline__ static void carry(int& cc, int& dd, int& hh, int& ww, int by) {
    if constexpr (G::KD * G::KH * G::KW == 1) {
      cc += by;
    } else if constexpr (G::KD == 1) {  // 2-D: no depth counter
      ww += by;
      while (ww >= G::KW) ww -= G::KW, ++hh;
      while (hh >= G::KH) hh -= G::KH, ++cc;
    } else {
      ww += by;
      while (ww >= G::KW) ww -= G::KW, ++hh;
      while (hh >= G::KH) hh -= G::KH, ++dd;
      while (dd >= G::KD) dd -= G::KD, ++cc;
    }
  }
  __device__ __forceinline__ void fetch(float (&v)[L]) {
    int cc = c, dd = kd, hh = kh, ww = kw;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      v[i] = i < left ? at(cc, dd, hh, ww) : 0.0f;
      if (i + 1 < L) carry(cc, dd, hh, ww, 1);
    }
  }
  __device__ __forceinline__ void next() {
    left -= TK;
    carry(c, kd, kh, kw, TK);
  }
};

#endif  // RAMMER_GEMM_MAINLOOP_CUH
