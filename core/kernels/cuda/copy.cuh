// copy.cuh: the copy rKernels (issue #44 item 1): Concat, Split, Slice,
// Transpose, Pad, Expand, Tile, DepthToSpace, SpaceToDepth, and Gather and
// GatherElements by constant indices. The generator factors each output's
// element map into segments, boxes of elements whose source is a sum of
// per-dim offsets (core/kernels/copy_kernels.cpp); a segment is a type
// here, and element i of the rKernel's flat range is copied by the segment
// that holds it. Built on index_math.cuh.
#ifndef RAMMER_COPY_CUH
#define RAMMER_COPY_CUH

// Where a dim reads its source: coordinate c adds T0 + c * STEP past the
// input's base ...
template <long long T0, long long STEP>
struct RammerCopyAffine {
  static constexpr bool table = false;
  static constexpr long long t0 = T0, step = STEP;
  __device__ __forceinline__ static const int* values() { return nullptr; }  // never read
};
// ... or entry c of a table baked into the program (TABLE: a type with
// `static const T* values()`).
template <class TABLE>
struct RammerCopyTable {
  static constexpr bool table = true;
  static constexpr long long t0 = 0, step = 0;
  __device__ __forceinline__ static auto values() { return TABLE::values(); }
};

// Dim K of a segment's box (innermost first, unit dims left out):
// coordinate c < EXT lands at c * OUT_STRIDE of the output and reads
// SOURCE; outside [LO, HI) the element is the fill (constant padding).
template <int K, long long EXT, long long OUT_STRIDE, long long LO, long long HI, class SOURCE>
struct RammerCopyDim {
  enum : long long { index = K, ext = EXT, outStride = OUT_STRIDE, lo = LO, hi = HI };
  static constexpr bool guarded = LO > 0 || HI < EXT;
  using Source = SOURCE;
};

// How a segment's elements are written.
enum RammerCopyMode { RAMMER_COPY_READ, RAMMER_COPY_GUARDED, RAMMER_COPY_FILL };

// Elements [START, START + SIZE) of the flat range (WHOLE: all of it),
// written to the output at OUT_BASE plus the dims' offsets and read from
// the input at IN_BASE plus theirs, or the fill (its bits: FILL).
//
// copy() is one function of folds over the dims, in the order the
// written-out code had: every coordinate, the guard, the source (read
// only where the guard holds), then the destination. NVCC's registers
// follow that shape: a helper function per term, a running dim counter
// instead of each dim's index K, or the source summed before the guard
// each cost the copies one or two registers.
template <long long START, long long SIZE, bool WHOLE, int MODE, int FILL, long long IN_BASE, long long OUT_BASE,
          class... DIMS>
struct RammerCopySegment {
  template <class I>
  __device__ __forceinline__ static void copy(I i, const float* __restrict__ in, float* __restrict__ out) {
    if (!WHOLE && !(i >= (I)START && i < (I)(START + SIZE))) return;
    I r = i - (I)START;
    I c[sizeof...(DIMS) + 1];
    ((c[DIMS::index] = r % RammerLiteral<DIMS::ext>::value, r = r / RammerLiteral<DIMS::ext>::value), ...);
    bool ok = MODE != RAMMER_COPY_FILL;
    if constexpr (MODE == RAMMER_COPY_GUARDED)
      ok = (ok && ... &&
            (!DIMS::guarded ||
             (c[DIMS::index] >= RammerLiteral<DIMS::lo>::value && c[DIMS::index] < RammerLiteral<DIMS::hi>::value)));
    float v = __int_as_float(FILL);
    if (ok) {
      I src = (I)IN_BASE;
      ((src = DIMS::Source::table ? src + (I)DIMS::Source::values()[c[DIMS::index]]
              : DIMS::Source::t0 != 0
                  ? src + c[DIMS::index] * RammerLiteral<DIMS::Source::step>::value + (I)DIMS::Source::t0
                  : src + c[DIMS::index] * RammerLiteral<DIMS::Source::step>::value),
       ...);
      v = in[src];
    }
    I dst = (I)OUT_BASE;
    ((dst = dst + c[DIMS::index] * RammerLiteral<DIMS::outStride>::value), ...);
    out[dst] = v;
  }
};

template <class>
using RammerCopyInput = const float* __restrict__;
template <class>
using RammerCopyOutput = float* __restrict__;

// The loop of element_loop.cuh written out here (as a lambda, the copies
// took more registers), each element through every segment; `in` and
// `out` are each segment's input and output.
template <class I, int THREADS, long long CHUNK, long long TOTAL, class... SEGS>
__device__ __forceinline__ void rammer_copy(int rtask_id, int tid, float* smem, RammerCopyInput<SEGS>... in,
                                            RammerCopyOutput<SEGS>... out) {
  (void)smem;
  if (tid >= THREADS) return;
  const I begin = (I)rtask_id * (I)CHUNK;
  const I end = begin + (I)CHUNK < (I)TOTAL ? begin + (I)CHUNK : (I)TOTAL;
  for (I i = begin + tid; i < end; i += THREADS) (SEGS::template copy<I>(i, in, out), ...);
}

#endif  // RAMMER_COPY_CUH
