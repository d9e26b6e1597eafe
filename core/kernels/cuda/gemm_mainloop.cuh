// gemm_mainloop.cuh: the K loop shared by the GEMM, batched MatMul and
// implicit-GEMM convolution rKernels (issue #27 item 3). Compiled into
// rammer as text (core/kernels/cuda_library.h) and emitted once into every
// generated program that uses it; the generators only write the operand
// loaders and an instantiation with the shapes as template arguments.
//
// One rTask computes a TM x TN output tile with NT = (TM/RM) x (TN/RN)
// threads, each owning RM x RN accumulators as (RM/4) x (RN/4) fragments of
// 4 x 4, so every fragment is one 16-byte shared load per operand per k.
// An operand reaches shared memory one of two ways:
//   through registers (K-major operands, gathered ones): each thread
//   fetches its next L = TK*TM/NT elements one K step ahead and stores them
//   after computing the current step (a K-major tile is transposed there);
//   by cp.async (MN-major operands contiguous along m or n, tiles of >= 32
//   rows): 16-byte copies straight into the shared layout, zero-filled past
//   the matrix edge, STAGES - 1 steps ahead (4-byte copies where the rows
//   are not 16-byte aligned).
// Per K step: issue the copies of step s + STAGES - 1, fetch step s + 1
// into registers, compute step s, store the registers, wait for the
// copies of step s + 1, one __syncthreads. Shared memory holds STAGES
// buffers of As[TK][TM+PAD] and Bs[TK][TN+PAD] (3 with a cp.async operand,
// 2 without). The padding makes the stores and the fragment loads
// conflict-free (tests/core/kernels/mainloop_banks_test.cpp counts them
// over a warp).
//
// The same text compiles for CUDA, HIP and the host target (its prelude
// gives the CUDA names a CPU meaning), so the host runs of CI execute it.
// HIP copies at once; the host defers each copy to its wait and poisons the
// destination when it is issued, so a step read before its copies were
// waited for reads NaN and fails the host tests.
#ifndef RAMMER_GEMM_MAINLOOP_CUH
#define RAMMER_GEMM_MAINLOOP_CUH

// Shared memory through 32-bit addresses: NVRTC otherwise addresses the
// generic `smem` pointer with 64-bit registers in every access, which costs
// the mainloop the registers it needs for its accumulators. `RammerSmem`
// is a word offset into the vEU's dynamic shared memory.
struct rammer_f4 {
  float x, y, z, w;
};

// How an operand is laid out in shared memory and how it gets there.
enum : int {
  RAMMER_K_MAJOR = 0,   // contiguous along k in global memory; through registers, transposed
  RAMMER_MN_MAJOR = 1,  // along m (n) in shared memory; through registers
  RAMMER_MN_ASYNC = 2   // along m (n) in both; by cp.async
};
#if defined(RAMMER_TARGET_CUDA)
struct RammerSmem {
  unsigned base;  // shared-window byte address of word 0
  __device__ __forceinline__ explicit RammerSmem(float* p) : base((unsigned)__cvta_generic_to_shared(p)) {}
  __device__ __forceinline__ unsigned at(int word) const { return base + 4u * (unsigned)word; }
  __device__ __forceinline__ void st(int word, float v) const {
    asm volatile("st.shared.f32 [%0], %1;" : : "r"(at(word)), "f"(v) : "memory");
  }
  __device__ __forceinline__ rammer_f4 ld4(int word) const {
    rammer_f4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(at(word))
                 : "memory");
    return v;
  }
};
#else
struct RammerSmem {
  float* base;
  __device__ __forceinline__ explicit RammerSmem(float* p) : base(p) {}
  __device__ __forceinline__ float* at(int word) const { return base + word; }
  __device__ __forceinline__ void st(int word, float v) const { base[word] = v; }
  __device__ __forceinline__ rammer_f4 ld4(int word) const {
    const float* p = base + word;
    return rammer_f4{p[0], p[1], p[2], p[3]};
  }
};
#endif

// A thread's copies from global to shared memory that complete later:
// copy16 (4 floats, 16-byte aligned at both ends) and copy4 (1 float) read
// the first `bytes` of the source and zero the rest; commit() closes a
// group of copies; wait<N>() returns when at most the N latest groups are
// still in flight. A __syncthreads after the wait publishes the copies.
#if defined(RAMMER_TARGET_CUDA)
struct RammerAsyncCopies {
  __device__ __forceinline__ void copy16(const RammerSmem& sh, int word, const float* src, int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                 :
                 : "r"(sh.at(word)), "l"(__cvta_generic_to_global(src)), "r"(bytes)
                 : "memory");
  }
  __device__ __forceinline__ void copy4(const RammerSmem& sh, int word, const float* src, int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;"
                 :
                 : "r"(sh.at(word)), "l"(__cvta_generic_to_global(src)), "r"(bytes)
                 : "memory");
  }
  __device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" : : : "memory"); }
  template <int N>
  __device__ __forceinline__ void wait() {
    asm volatile("cp.async.wait_group %0;" : : "n"(N) : "memory");
  }
};
#elif defined(RAMMER_TARGET_HOST)
// Deferred to the wait that covers them, the destination poisoned (NaN)
// until then: the host runs check the pipeline's waits and barriers.
struct RammerAsyncCopies {
  struct Copy {
    float* dst;
    const float* src;
    int floats, valid, group;
  };
  enum : int { CAPACITY = 64 };
  Copy pending[CAPACITY];
  int count = 0, group = 0;
  void put(float* dst, const float* src, int floats, int bytes) {
    if (count == CAPACITY) ::rammer_host::trap("too many cp.async copies in flight");
    for (int i = 0; i < floats; ++i) dst[i] = __int_as_float(0x7fc00000);
    pending[count++] = Copy{dst, src, floats, bytes / 4, group};
  }
  void copy16(const RammerSmem& sh, int word, const float* src, int bytes) { put(sh.at(word), src, 4, bytes); }
  void copy4(const RammerSmem& sh, int word, const float* src, int bytes) { put(sh.at(word), src, 1, bytes); }
  void commit() { ++group; }
  template <int N>
  void wait() {
    int kept = 0;
    for (int c = 0; c < count; ++c) {
      const Copy& p = pending[c];
      if (p.group < group - N) {
        for (int i = 0; i < p.floats; ++i) p.dst[i] = i < p.valid ? p.src[i] : 0.0f;
      } else {
        pending[kept++] = p;
      }
    }
    count = kept;
  }
};
#else
// HIP: plain loads and stores, complete at once.
struct RammerAsyncCopies {
  __device__ __forceinline__ void copy16(const RammerSmem& sh, int word, const float* src, int bytes) {
    float* d = sh.at(word);
#pragma unroll
    for (int i = 0; i < 4; ++i) d[i] = 4 * i < bytes ? src[i] : 0.0f;
  }
  __device__ __forceinline__ void copy4(const RammerSmem& sh, int word, const float* src, int bytes) {
    *sh.at(word) = bytes > 0 ? *src : 0.0f;
  }
  __device__ __forceinline__ void commit() {}
  template <int N>
  __device__ __forceinline__ void wait() {}
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
  // The cp.async map (MN-major): the tile as TK x TM/4 chunks of 4 rows;
  // consecutive threads take consecutive chunks along a shared row, so a
  // quarter-warp's 16-byte stores cover 32 banks; a thread's chunks keep
  // its rows and step k by CHUNK_K.
  enum : int {
    ROW_CHUNKS = TM / 4,
    CHUNKS = TK * ROW_CHUNKS,
    CHUNK_K = NT / ROW_CHUNKS > 0 ? NT / ROW_CHUNKS : 1,
    CHUNKS_PER_THREAD = (CHUNKS + NT - 1) / NT
  };
  __host__ __device__ static constexpr int chunkRow(int tid) { return (tid % ROW_CHUNKS) * 4; }
  __host__ __device__ static constexpr int chunkK(int tid, int j) { return tid / ROW_CHUNKS + j * CHUNK_K; }
  __host__ __device__ static constexpr int chunkStore(int tid, int j) { return chunkK(tid, j) * LD + chunkRow(tid); }
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

template <int TM, int TN, int TK, int RM, int RN, int A_LAYOUT, int B_LAYOUT>
struct RammerGemmTile {
  enum : int { NT = (TM / RM) * (TN / RN) };
  enum : int { TILE_M = TM, TILE_N = TN, TILE_K = TK, REG_M = RM, REG_N = RN, LAYOUT_A = A_LAYOUT, LAYOUT_B = B_LAYOUT };
  using MapA = RammerOperandMap<TM, TK, NT, A_LAYOUT == RAMMER_K_MAJOR>;
  using MapB = RammerOperandMap<TN, TK, NT, B_LAYOUT == RAMMER_K_MAJOR>;
  using Frag = RammerFragments<TM, TN, RM, RN>;
  static_assert(A_LAYOUT != RAMMER_MN_ASYNC || (TM % 32 == 0 && NT % (TM / 4) == 0), "no cp.async map for A");
  static_assert(B_LAYOUT != RAMMER_MN_ASYNC || (TN % 32 == 0 && NT % (TN / 4) == 0), "no cp.async map for B");
  enum : int {
    A_ASYNC = A_LAYOUT == RAMMER_MN_ASYNC,
    B_ASYNC = B_LAYOUT == RAMMER_MN_ASYNC,
    STAGES = A_ASYNC || B_ASYNC ? 3 : 2,  // cp.async runs two steps ahead, registers one
    A_WORDS = TK * MapA::LD,
    B_WORDS = TK * MapB::LD,
    BUFFER_WORDS = A_WORDS + B_WORDS,
    SHARED_WORDS = STAGES * BUFFER_WORDS
  };
};

// One K step of an operand into shared buffer word `buf`: the registers'
// elements (register path) or the thread's cp.async chunks.
template <class M, int L>
__device__ __forceinline__ void rammer_store_step(const RammerSmem& sh, int buf, int t, const float (&v)[L]) {
#pragma unroll
  for (int i = 0; i < M::L; ++i) sh.st(buf + M::store(t, i), v[i]);
}
template <class M, int TK, class LD>
__device__ __forceinline__ void rammer_copy_step(RammerAsyncCopies& copies, const RammerSmem& sh, int buf, int t,
                                                 LD& loader) {
#pragma unroll
  for (int j = 0; j < M::CHUNKS_PER_THREAD; ++j)
    if (M::chunkK(t, j) < TK) loader.copyChunk(copies, sh, buf + M::chunkStore(t, j), j * M::CHUNK_K);
}

// The loop. `A` and `B` are loaders with
//   void start(I mn, I k): the thread's row and first k (within the tile)
//   void fetch(float (&v)[L]): v[i] = element (mn, k + i), 0 outside
//   void next(): k += TK
// (a cp.async operand: startChunk(I mn, I k) for its chunk map, and
// copyChunk instead of fetch), and `store(m, n, v)` receives every
// accumulator (m, n local to the tile's origin, which the store knows; it
// skips those past the matrix edge). Threads tid >= NT reach every barrier
// and do nothing else; there are steps + 1 barriers.
template <int TM, int TN, int TK, int RM, int RN, int A_LAYOUT, int B_LAYOUT, class LA, class LB, class ST>
__device__ __forceinline__ void rammer_gemm_mainloop(int tid, float* smem, int steps, LA& A, LB& B, ST& store) {
  using T = RammerGemmTile<TM, TN, TK, RM, RN, A_LAYOUT, B_LAYOUT>;
  using MA = typename T::MapA;
  using MB = typename T::MapB;
  using F = typename T::Frag;
  constexpr bool AA = T::A_ASYNC, BA = T::B_ASYNC, ASYNC = AA || BA;
  constexpr int S = T::STAGES, BW = T::BUFFER_WORDS, AW = T::A_WORDS;
  const bool active = tid < T::NT;
  const int t = active ? tid : 0;
  if constexpr (AA) A.startChunk(MA::chunkRow(t), MA::chunkK(t, 0));
  else A.start(MA::row(t), MA::kq(t));
  if constexpr (BA) B.startChunk(MB::chunkRow(t), MB::chunkK(t, 0));
  else B.start(MB::row(t), MB::kq(t));
  float va[AA ? 1 : MA::L], vb[BA ? 1 : MB::L];
  float acc[RM][RN];
#pragma unroll
  for (int r = 0; r < RM; ++r)
#pragma unroll
    for (int c = 0; c < RN; ++c) acc[r][c] = 0.0f;
  const int tx = t % F::TX, ty = t / F::TX;
  const RammerSmem sh(smem);
  RammerAsyncCopies copies;

  // The copies of steps 0 .. S - 2, a group each; the registers' step 0.
  int wr = 0;  // buffer of the next step to copy
  if constexpr (ASYNC) {
#pragma unroll
    for (int st = 0; st < S - 1; ++st) {
      if (active && st < steps) {
        if constexpr (AA) {
          if (st > 0) A.next();
          rammer_copy_step<MA, TK>(copies, sh, wr, t, A);
        }
        if constexpr (BA) {
          if (st > 0) B.next();
          rammer_copy_step<MB, TK>(copies, sh, wr + AW, t, B);
        }
      }
      copies.commit();
      wr += BW;
    }
  }
  if (active) {
    if constexpr (!AA) {
      A.fetch(va);
      rammer_store_step<MA>(sh, 0, t, va);
    }
    if constexpr (!BA) {
      B.fetch(vb);
      rammer_store_step<MB>(sh, AW, t, vb);
    }
  }
  if constexpr (ASYNC) copies.template wait<S - 2>();
  __syncthreads();
  int rd = 0;  // buffer of step s (buffers rotate without a division)
  // Not unrolled: a short K (a stem convolution's 27) would otherwise be
  // unrolled whole, and the copies' registers spill.
#pragma unroll 1
  for (int s = 0; s < steps; ++s) {
    const bool more = s + 1 < steps;
    const int nx = rd + BW == S * BW ? 0 : rd + BW;  // buffer of step s + 1
    if constexpr (ASYNC) {
      // Buffer `wr` held step s - 1, which every thread finished before the last barrier.
      if (active && s + S - 1 < steps) {
        if constexpr (AA) {
          A.next();
          rammer_copy_step<MA, TK>(copies, sh, wr, t, A);
        }
        if constexpr (BA) {
          B.next();
          rammer_copy_step<MB, TK>(copies, sh, wr + AW, t, B);
        }
      }
      copies.commit();
      wr = wr + BW == S * BW ? 0 : wr + BW;
    }
    if (active && more) {
      if constexpr (!AA) {
        A.next();
        A.fetch(va);
      }
      if constexpr (!BA) {
        B.next();
        B.fetch(vb);
      }
    }
    if (active) {
      const int bs = rd + AW;
#pragma unroll
      for (int kk = 0; kk < TK; ++kk) {
        float a[RM], b[RN];
#pragma unroll
        for (int f = 0; f < F::FM; ++f) {
          const rammer_f4 v = sh.ld4(rd + kk * MA::LD + F::row(ty, f));
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
        if constexpr (!AA) rammer_store_step<MA>(sh, nx, t, va);
        if constexpr (!BA) rammer_store_step<MB>(sh, nx + AW, t, vb);
      }
    }
    if constexpr (ASYNC) copies.template wait<S - 2>();  // step s + 1 has landed
    __syncthreads();
    rd = nx;
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
  I left;         // k of the tile from the thread's current one on (<= 0: none)
  int valid = 0;  // cp.async: the floats of the thread's chunk of 4 rows inside the matrix
  bool whole = false;  // cp.async: 16-byte aligned chunks
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
  // cp.async: the thread's chunk starts at row `row` (a multiple of 4) and k `kfirst`.
  __device__ __forceinline__ void startChunk(I row, I kfirst) {
    static_assert(SMN == 1, "cp.async copies rows that are contiguous along m (n)");
    const I v = rows - row;
    valid = v <= 0 ? 0 : (v >= 4 ? 4 : (int)v);
    left -= kfirst;
    p += row + kfirst * (I)SK;
    whole = SK % 4 == 0 && ((unsigned long long)p & 15) == 0;
  }
  // The chunk `dk` k past the thread's current one into shared word `word`.
  __device__ __forceinline__ void copyChunk(RammerAsyncCopies& copies, const RammerSmem& sh, int word, int dk) {
    const int n = dk < left ? valid : 0;
    const float* src = p + dk * (I)SK;
    if (whole) {
      copies.copy16(sh, word, src, 4 * n);
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) copies.copy4(sh, word + i, src + i, i < n ? 4 : 0);
    }
  }
};

// The im2col operand of an implicit-GEMM convolution (B: K x N with
// k = (input channel, kd, kh, kw) and n = (image, od, oh, ow) of one
// group): element (n, k) reads the input at the window tap, 0 in the
// padding. G holds the geometry (conv_geometry.cuh's RammerConvGeometry).
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
