// elementwise.cuh: the element-wise rKernels (issue #44 item 1). Output
// element i is Op::apply of one value of each input; the generator writes
// only Op, the expression (ops/math/fused_expr.h, or a word operator's on
// the integer helpers below), and says how each input is read. Built on
// element_loop.cuh and index_math.cuh.
#ifndef RAMMER_ELEMENTWISE_CUH
#define RAMMER_ELEMENTWISE_CUH

template <class>
using RammerInputPointer = const float* __restrict__;

// Op: a type with `static float apply(float x0, ...)`; Reads: one per input
// (index_math.cuh's RammerRead*).
template <class I, int THREADS, long long CHUNK, long long TOTAL, class Op, class... Reads>
__device__ __forceinline__ void rammer_elementwise(int rtask_id, int tid, float* smem, float* __restrict__ out0,
                                                   RammerInputPointer<Reads>... in) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid,
                                                [&](I i) { out0[i] = Op::apply(in[Reads::template offset<I>(i)]...); });
}

// Integer words (ir/words.h) as 64-bit values, for the word operators'
// arithmetic: a fold from the left over the inputs, as the reference
// computes it, and the operations ONNX defines on integers (a division by
// zero gives 0; Mod takes the divisor's sign unless fmod is set: ModC).
__device__ __forceinline__ long long rammer_word_int(float w) { return __float_as_int(w); }
struct RammerWordNeg {
  __device__ __forceinline__ static long long apply(long long a) { return -a; }
};
struct RammerWordAbs {
  __device__ __forceinline__ static long long apply(long long a) { return a < 0 ? -a : a; }
};
template <class Op>
__device__ __forceinline__ long long rammer_word_map(float w) {
  return Op::apply(rammer_word_int(w));
}
struct RammerWordAdd {
  __device__ __forceinline__ static long long apply(long long a, long long b) { return a + b; }
};
struct RammerWordSub {
  __device__ __forceinline__ static long long apply(long long a, long long b) { return a - b; }
};
struct RammerWordMul {
  __device__ __forceinline__ static long long apply(long long a, long long b) { return a * b; }
};
struct RammerWordMax {
  __device__ __forceinline__ static long long apply(long long a, long long b) { return a > b ? a : b; }
};
struct RammerWordMin {
  __device__ __forceinline__ static long long apply(long long a, long long b) { return a < b ? a : b; }
};
struct RammerWordDiv {
  __device__ __forceinline__ static long long apply(long long a, long long b) { return b == 0 ? 0LL : a / b; }
};
struct RammerWordModC {
  __device__ __forceinline__ static long long apply(long long a, long long b) { return b == 0 ? 0LL : a % b; }
};
struct RammerWordMod {
  __device__ __forceinline__ static long long apply(long long a, long long b) {
    return b == 0 ? 0LL : (a % b != 0 && ((a % b < 0) != (b < 0))) ? a % b + b : a % b;
  }
};

template <class Op>
__device__ __forceinline__ long long rammer_word_fold_from(long long acc) {
  return acc;
}
template <class Op, class... W>
__device__ __forceinline__ long long rammer_word_fold_from(long long acc, float w, W... rest) {
  return rammer_word_fold_from<Op>(Op::apply(acc, rammer_word_int(w)), rest...);
}
template <class Op, class... W>
__device__ __forceinline__ long long rammer_word_fold(float w0, W... rest) {
  return rammer_word_fold_from<Op>(rammer_word_int(w0), rest...);
}

#endif  // RAMMER_ELEMENTWISE_CUH
