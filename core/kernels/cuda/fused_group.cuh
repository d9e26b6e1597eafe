// fused_group.cuh: a GraphTurbo fused group (core/ops/group/fused_group.h),
// one instance per rTask (issue #44 item 1: the body the generator in
// core/kernels/fused_group_kernels.cpp used to print; it now emits only the
// instantiation). Walking back from the sink's piece, each member's range
// along its split dim is widened by what its consumers read (halos
// included); then the members run in order, every one but the sink keeping
// its range in shared memory, a barrier between them. Members are types:
// their dims, split dim and place in shared memory, the ranges they read of
// their producers (the maps) and what they compute per element (the body:
// an element-wise expression, a convolution or a pooling window). Built on
// index_math.cuh and window_pool.cuh's RammerWindowAxis.
#ifndef RAMMER_FUSED_GROUP_CUH
#define RAMMER_FUSED_GROUP_CUH

// T at position K of a type list.
template <int K, class T, class... REST>
struct RammerTypeAt {
  using type = typename RammerTypeAt<K - 1, REST...>::type;
};
template <class T, class... REST>
struct RammerTypeAt<0, T, REST...> {
  using type = T;
};

// What one rTask works with: its group inputs, its shared memory, and each
// member's range [lo, lo + L) along its split dim.
template <class I, int N, int INPUTS>
struct RammerGroupState {
  const float* in[INPUTS ? INPUTS : 1];
  float* smem;
  I lo[N], L[N];
};

// ---- reads: a value of a member's input at coordinates c ----

// Offset of element c[LEAD], c[LEAD + 1], ... of a row-major tensor of
// dims D, over its first K dims; a dim of extent 1 contributes nothing (a
// reader broadcasts it).
template <class D, int LEAD, int K = D::rank>
struct RammerGroupOffset {
  template <class I>
  __device__ __forceinline__ static I of(const I* c) {
    constexpr int d = K - 1;
    return RammerGroupOffset<D, LEAD, d>::of(c) +
           (D::template extent<d>::value != 1 ? c[LEAD + d] * (I)D::template stride<d>::value : (I)0);
  }
};
template <class D, int LEAD>
struct RammerGroupOffset<D, LEAD, 0> {
  template <class I>
  __device__ __forceinline__ static I of(const I*) {
    return 0;
  }
};

// Group input SLOT of dims D, read at c[LEAD + d] for each dim d.
template <int SLOT, int LEAD, class D>
struct RammerGroupInput {
  template <class I, class S>
  __device__ __forceinline__ static float at(const I* c, const S& s) {
    return s.in[SLOT][RammerGroupOffset<D, LEAD>::of(c)];
  }
};

// Member P's range in shared memory at word OFFSET: dims D with the split
// dim SPLIT cut to [lo[P], lo[P] + L[P]), read at c[LEAD + d] (0 along a
// dim of extent 1, where the reader broadcasts it). Horner over the first
// K dims.
template <int P, long long OFFSET, int SPLIT, int LEAD, class D, int K = D::rank>
struct RammerGroupBuffer {
  template <class I, class S>
  __device__ __forceinline__ static I index(const I* c, const S& s) {
    constexpr int d = K - 1;
    constexpr long long extent = D::template extent<d>::value;
    const I outer = RammerGroupBuffer<P, OFFSET, SPLIT, LEAD, D, d>::index(c, s);
    const I coord = extent == 1 ? (I)0 : c[LEAD + d];
    return d == SPLIT ? outer * s.L[P] + (coord - s.lo[P]) : outer * (I)extent + coord;
  }
  template <class I, class S>
  __device__ __forceinline__ static float at(const I* c, const S& s) {
    return s.smem[OFFSET + index(c, s)];
  }
};
template <int P, long long OFFSET, int SPLIT, int LEAD, class D>
struct RammerGroupBuffer<P, OFFSET, SPLIT, LEAD, D, 0> {
  template <class I, class S>
  __device__ __forceinline__ static I index(const I*, const S&) {
    return 0;
  }
};

// No input (a convolution without bias).
struct RammerGroupNoRead {
  template <class I, class S>
  __device__ __forceinline__ static float at(const I*, const S&) {
    return 0.0f;
  }
};

// ---- bodies: a member's value at output coordinates c ----

// Op::apply of one value of each input (Reads: one per input slot).
template <class Op, class... Reads>
struct RammerGroupElementwise {
  template <class I, class S>
  __device__ __forceinline__ static float value(const I* c, const S& s) {
    return Op::apply(Reads::at(c, s)...);
  }
};

// The window of output position c along the spatial axes A0..A2 (leading
// axes of a 1-D or 2-D window are RammerWindowAxis<1, 1, 1, 1, 0, 0, 1>):
// f.visit(xc, wc, s) for each tap inside the input. The caller fills xc[0],
// xc[1] (image, input channel) and wc[0], wc[1] (output and input channel);
// walk fills the rest with the tap's input positions (xc) and window
// positions (wc) along the member's SPATIAL axes.
template <int SPATIAL, class A0, class A1, class A2>
struct RammerGroupWindow {
  static constexpr int lead = 3 - SPATIAL;
  template <class I, class S, class F>
  __device__ __forceinline__ static void walk(const I* c, I* xc, I* wc, const S& s, F& f) {
    const I o0 = lead > 0 ? (I)0 : c[2 - lead];
    const I o1 = lead > 1 ? (I)0 : c[3 - lead];
    const I o2 = c[4 - lead];
    for (I k0 = 0; k0 < A0::kernel; ++k0) {
      const I i0 = o0 * A0::stride - A0::padBegin + k0 * A0::dilation;
      if (i0 < 0 || i0 >= A0::in) continue;
      if (lead == 0) xc[2] = i0, wc[2] = k0;
      for (I k1 = 0; k1 < A1::kernel; ++k1) {
        const I i1 = o1 * A1::stride - A1::padBegin + k1 * A1::dilation;
        if (i1 < 0 || i1 >= A1::in) continue;
        if (lead <= 1) xc[3 - lead] = i1, wc[3 - lead] = k1;
        for (I k2 = 0; k2 < A2::kernel; ++k2) {
          const I i2 = o2 * A2::stride - A2::padBegin + k2 * A2::dilation;
          if (i2 < 0 || i2 >= A2::in) continue;
          xc[4 - lead] = i2;
          wc[4 - lead] = k2;
          f.visit(xc, wc, s);
        }
      }
    }
  }
};

// Conv: the sum over the group's CIG input channels and the window of X *
// W, plus B[c[1]] where HAS_BIAS; output channel c[1] is in group c[1] / COG.
template <long long CIG, long long COG, bool HAS_BIAS, class X, class W, class B, class Window>
struct RammerGroupConv {
  template <class I, class S>
  struct Sum {
    float acc;
    // An explicit fused multiply-add: what the GPU compiles `acc += x * w`
    // to, and on the host the same rounding whether or not the loop is
    // vectorized.
    __device__ __forceinline__ void visit(const I* xc, const I* wc, const S& s) {
      acc = fmaf(X::at(xc, s), W::at(wc, s), acc);
    }
  };
  template <class I, class S>
  __device__ __forceinline__ static float value(const I* c, const S& s) {
    Sum<I, S> sum{0.0f};
    const I g = c[1] / (I)COG;
    I xc[5], wc[5];
    xc[0] = c[0];
    wc[0] = c[1];
    // Rolled: unrolled, the loop took more registers than the printed one
    // did (randwire's nine convolutions into one sum: 29 -> 40 alone, and
    // its graphturbo program's stack grew from 24 to 56 bytes).
#pragma unroll 1
    for (I ci = 0; ci < (I)CIG; ++ci) {
      xc[1] = g * (I)CIG + ci;
      wc[1] = ci;
      Window::walk(c, xc, wc, s, sum);
    }
    if (HAS_BIAS) {
      const I bc[1] = {c[1]};
      return sum.acc + B::at(bc, s);
    }
    return sum.acc;
  }
};

// MaxPool (the largest tap, -inf for none) or AveragePool (the mean of the
// taps inside the input, or with INCLUDE_PAD their sum over the window's
// KERNEL_SIZE positions) of X.
template <bool MAX, bool INCLUDE_PAD, long long KERNEL_SIZE, class X, class Window>
struct RammerGroupPool {
  template <class I, class S>
  struct Taps {
    float acc;
    int cnt;
    __device__ __forceinline__ void visit(const I* xc, const I*, const S& s) {
      const float x = X::at(xc, s);
      if (MAX) {
        acc = fmaxf(acc, x);
      } else {
        acc += x;
        ++cnt;
      }
    }
  };
  template <class I, class S>
  __device__ __forceinline__ static float value(const I* c, const S& s) {
    Taps<I, S> taps{MAX ? -INFINITY : 0.0f, 0};
    I xc[5], wc[5];
    xc[0] = c[0];
    xc[1] = c[1];
    Window::walk(c, xc, wc, s, taps);
    if (MAX) return taps.acc;
    if (INCLUDE_PAD) return taps.acc / (float)KERNEL_SIZE;
    return taps.cnt ? taps.acc / (float)taps.cnt : 0.0f;
  }
};

// ---- members and their ranges ----

// How member J's range maps onto producer P's (core/ops/group/split_info.h's
// AxisMap): blocks of OUT_BLOCK onto blocks of IN_BLOCK, or the window
// [lo * STRIDE - OFFSET, (hi - 1) * STRIDE - OFFSET + EXTENT); clamped to
// the producer's split extent SIZE.
template <int P, bool BLOCKS, long long OUT_BLOCK, long long IN_BLOCK, long long STRIDE, long long OFFSET,
          long long EXTENT, long long SIZE>
struct RammerGroupMap {
  template <class I>
  __device__ __forceinline__ static void widen(I loJ, I hiJ, I* lo, I* hi, bool* any) {
    if (hiJ <= loJ) return;
    I a = BLOCKS ? loJ / (I)OUT_BLOCK * (I)IN_BLOCK : loJ * (I)STRIDE - (I)OFFSET;
    I b = BLOCKS ? ((hiJ - 1) / (I)OUT_BLOCK + 1) * (I)IN_BLOCK : (hiJ - 1) * (I)STRIDE - (I)OFFSET + (I)EXTENT;
    a = a < 0 ? 0 : a > (I)SIZE ? (I)SIZE : a;
    b = b < a ? a : b > (I)SIZE ? (I)SIZE : b;
    if (a < b) {
      if (!any[P] || a < lo[P]) lo[P] = a;
      if (!any[P] || b > hi[P]) hi[P] = b;
      any[P] = true;
    }
  }
};

template <class... Maps>
struct RammerGroupMaps {
  template <class I>
  __device__ __forceinline__ static void widen(I loJ, I hiJ, I* lo, I* hi, bool* any) {
    (Maps::widen(loJ, hiJ, lo, hi, any), ...);
  }
};

// Coordinates c of element q of a member's range (dims D with the split
// dim SPLIT cut to [lo, lo + L)), its dims K - 1, K - 2, ..., 0.
template <class D, int SPLIT, int K>
struct RammerGroupCoords {
  template <class I>
  __device__ __forceinline__ static void split(I* c, I q, I lo, I L) {
    constexpr int d = K - 1;
    const I ext = d == SPLIT ? L : (I)D::template extent<d>::value;
    c[d] = (d == SPLIT ? lo : (I)0) + q % ext;
    RammerGroupCoords<D, SPLIT, d>::split(c, q / ext, lo, L);
  }
};
template <class D, int SPLIT>
struct RammerGroupCoords<D, SPLIT, 0> {
  template <class I>
  __device__ __forceinline__ static void split(I*, I, I, I) {}
};

// A member: output dims D cut along SPLIT (SLAB elements per index of it),
// kept at word SMEM_OFFSET of shared memory unless it is the sink, reading
// its producers through Maps and computing Body per element.
template <class D, int SPLIT, long long SLAB, long long SMEM_OFFSET, class Maps, class Body>
struct RammerGroupMember {
  using MapList = Maps;

  // Every element of member J's range, THREADS apart; into shared memory,
  // or, for the sink, into out0 (row-major over D).
  template <class I, int THREADS, int J, bool SINK, class S>
  __device__ __forceinline__ static void run(int tid, bool active, const S& s, float* __restrict__ out0) {
    for (I e = tid; active && e < s.L[J] * (I)SLAB; e += THREADS) {
      I c[D::rank];
      RammerGroupCoords<D, SPLIT, D::rank>::split(c, e, s.lo[J], s.L[J]);
      const float v = Body::value(c, s);
      if (SINK) {
        out0[RammerGroupOffset<D, 0>::of(c)] = v;
      } else {
        s.smem[SMEM_OFFSET + e] = v;
      }
    }
  }
};

// Members J, J - 1, ..., 0: each range emptied when it is, then widening
// its producers' (which come before it).
template <class I, int J, class... M>
struct RammerGroupBackward {
  __device__ __forceinline__ static void run(I* lo, I* hi, bool* any) {
    if (lo[J] >= hi[J]) lo[J] = hi[J] = 0;
    RammerTypeAt<J, M...>::type::MapList::widen(lo[J], hi[J], lo, hi, any);
    RammerGroupBackward<I, J - 1, M...>::run(lo, hi, any);
  }
};
template <class I, class... M>
struct RammerGroupBackward<I, -1, M...> {
  __device__ __forceinline__ static void run(I*, I*, bool*) {}
};

// Members J, J + 1, ..., with a barrier after each but the sink (SINK:
// member J is the last).
template <class I, int THREADS, int J, bool SINK, class... M>
struct RammerGroupForward {
  template <class S>
  __device__ __forceinline__ static void run(int tid, bool active, const S& s, float* __restrict__ out0) {
    RammerTypeAt<J, M...>::type::template run<I, THREADS, J, false>(tid, active, s, out0);
    __syncthreads();
    RammerGroupForward<I, THREADS, J + 1, J + 2 == (int)sizeof...(M), M...>::run(tid, active, s, out0);
  }
};
template <class I, int THREADS, int J, class... M>
struct RammerGroupForward<I, THREADS, J, true, M...> {
  template <class S>
  __device__ __forceinline__ static void run(int tid, bool active, const S& s, float* __restrict__ out0) {
    RammerTypeAt<J, M...>::type::template run<I, THREADS, J, true>(tid, active, s, out0);
  }
};

template <class... M>
struct RammerGroup {};

// Instance rtask_id of the group: the sink's piece [rtask_id * PIECE,
// (rtask_id + 1) * PIECE) of its SINK_EXTENT along its split dim, and what
// each member needs of it. Threads from THREADS on skip the work but reach
// every barrier.
template <class I, int THREADS, long long PIECE, long long SINK_EXTENT, class G>
struct RammerFusedGroup;
template <class I, int THREADS, long long PIECE, long long SINK_EXTENT, class... M>
struct RammerFusedGroup<I, THREADS, PIECE, SINK_EXTENT, RammerGroup<M...>> {
  static constexpr int N = (int)sizeof...(M);
  template <class... In>
  __device__ __forceinline__ static void run(int rtask_id, int tid, float* smem, float* __restrict__ out0, In... in) {
    RammerGroupState<I, N, (int)sizeof...(In)> s{{in...}, smem, {}, {}};
    I lo[N], hi[N];
    bool any[N];
#pragma unroll
    for (int j = 0; j + 1 < N; ++j) {
      lo[j] = hi[j] = 0;
      any[j] = false;
    }
    lo[N - 1] = (I)rtask_id * (I)PIECE;
    hi[N - 1] = lo[N - 1] + (I)PIECE < (I)SINK_EXTENT ? lo[N - 1] + (I)PIECE : (I)SINK_EXTENT;
    RammerGroupBackward<I, N - 1, M...>::run(lo, hi, any);
#pragma unroll
    for (int j = 0; j < N; ++j) {
      s.lo[j] = lo[j];
      s.L[j] = hi[j] - lo[j];
    }
    RammerGroupForward<I, THREADS, 0, N == 1, M...>::run(tid, tid < THREADS, s, out0);
  }
};

template <class I, int THREADS, long long PIECE, long long SINK_EXTENT, class G, class... In>
__device__ __forceinline__ void rammer_fused_group(int rtask_id, int tid, float* smem, float* __restrict__ out0,
                                                   In... in) {
  RammerFusedGroup<I, THREADS, PIECE, SINK_EXTENT, G>::run(rtask_id, tid, smem, out0, in...);
}

#endif  // RAMMER_FUSED_GROUP_CUH
