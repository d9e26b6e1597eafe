// gemm_store.cuh: what the GEMM-shaped rKernels (the tiled GEMM and
// implicit-GEMM convolution of gemm_rtask.cuh, the GEMV of gemv_rtask.cuh,
// the depthwise convolution of conv_depthwise.cuh) do around their sums
// (issue #44 item 1): where a batch's operands start, where element (m, n)
// of batch bb lies in the output, the scale and bias of the sum, and the
// epilogue of a fused node (core/kernels/epilogue.h). The generator picks
// these types and writes only the expressions (Alpha, Beta, the epilogue)
// as local types with `static float apply(float x0, ...)`.
// Built on index_math.cuh and splitk.cuh.
#ifndef RAMMER_GEMM_STORE_CUH
#define RAMMER_GEMM_STORE_CUH

// An epilogue's other inputs: plain pointers, as every pointer of the
// GEMM-shaped rTask functions is (no __restrict__: their registers and
// loads stay as they were measured).
template <class>
using RammerGemmInput = const float*;

struct RammerIdentity {
  __device__ __forceinline__ static float apply(float x0) { return x0; }
};

// ---- where batch (or group) bb's operands start ----

// A single stride per operand: a convolution's groups (0, 0: one batch).
template <long long SA, long long SB>
struct RammerBatchStrides {
  template <class I>
  __device__ __forceinline__ static void offsets(I bb, I& a, I& b) {
    a = bb * RammerLiteral<SA>::value;
    b = bb * RammerLiteral<SB>::value;
  }
};

// Broadcast batch dims (MatMul): (extent, stride of A, stride of B)
// triples, innermost dim first; a stride of 0 where the operand broadcasts.
template <long long... ES>
struct RammerBatchSteps {
  template <class I>
  __device__ __forceinline__ static void add(I, I&, I&) {}
};
template <long long E, long long SA, long long SB, long long... REST>
struct RammerBatchSteps<E, SA, SB, REST...> {
  template <class I>
  __device__ __forceinline__ static void add(I r, I& a, I& b) {
    const I d = r % RammerLiteral<E>::value;
    r /= RammerLiteral<E>::value;
    a += d * RammerLiteral<SA>::value;
    b += d * RammerLiteral<SB>::value;
    RammerBatchSteps<REST...>::add(r, a, b);
  }
};
template <long long... ES>
struct RammerBatchDims {
  template <class I>
  __device__ __forceinline__ static void offsets(I bb, I& a, I& b) {
    a = 0;
    b = 0;
    RammerBatchSteps<ES...>::add(bb, a, b);
  }
};

// ---- where output element (m, n) of batch bb lies ----
// index(bb, m, n); element(out, bb, m, n): its address, as the
// written-out code summed it (the tiles' split-K epilogue reads it; the
// GEMV computes both in gemv_rtask.cuh's own body).

// Row-major [batches][M][N].
template <long long M, long long N>
struct RammerGemmOutput {
  template <class I>
  __device__ __forceinline__ static I index(I bb, I m, I n) {
    const I offY = bb * RammerLiteral<M * N>::value;
    return offY + m * (I)N + n;
  }
  template <class I>
  __device__ __forceinline__ static const float* element(const float* out, I bb, I m, I n) {
    const I offY = bb * RammerLiteral<M * N>::value;
    return out + offY + m * (I)N + n;
  }
};

// A convolution's [images][COUT][OS]: row m of group bb is output channel
// bb * MG + m, column n is position n % OS of image n / OS.
template <long long OS, long long COUT, long long MG>
struct RammerConvOutput {
  template <class I>
  __device__ __forceinline__ static I index(I bb, I m, I n) {
    const I img = n / RammerLiteral<OS>::value, q = n % RammerLiteral<OS>::value;
    return (img * RammerLiteral<COUT>::value + bb * RammerLiteral<MG>::value + m) * RammerLiteral<OS>::value + q;
  }
  template <class I>
  __device__ __forceinline__ static const float* element(const float* out, I bb, I m, I n) {
    return out + index(bb, m, n);
  }
};

// ---- what is added to the scaled sum ----

struct RammerNoBias {
  static constexpr bool present = false;
  template <class I>
  __device__ __forceinline__ static float at(const float*, I, I, I) {
    return 0.0f;
  }
};
// Beta::apply(c[bb * SB + m * SM + n * SN]): Gemm's beta * C (0 strides
// where C broadcasts), a convolution's bias per output channel.
template <class Beta, long long SB, long long SM, long long SN>
struct RammerBias {
  static constexpr bool present = true;
  template <class I>
  __device__ __forceinline__ static float at(const float* c, I bb, I m, I n) {
    return Beta::apply(c[bb * RammerLiteral<SB>::value + m * RammerLiteral<SM>::value + n * RammerLiteral<SN>::value]);
  }
};

// ---- the epilogue of a fused node ----

struct RammerNoEpilogue {
  static constexpr bool present = false;
  __device__ __forceinline__ static float apply(float x0) { return x0; }
};
// Op::apply(sum, the node's other inputs at the element...).
template <class Op>
struct RammerEpilogue {
  static constexpr bool present = true;
  template <class... X>
  __device__ __forceinline__ static float apply(float x0, X... xs) {
    return Op::apply(x0, xs...);
  }
};

// Output element o = Epilogue(p, the other inputs as Reads says); `extra`
// are the node's inputs after its operands.
template <class I, class Epilogue, class... Reads>
__device__ __forceinline__ void rammer_epilogue_store(float* out, I o, float p, RammerGemmInput<Reads>... extra) {
  out[o] = Epilogue::apply(p, extra[Reads::template offset<I>(o)]...);
}

// The pieces of one problem, as template arguments of the rTask templates.
template <class BATCH, class OUTPUT, class ALPHA, class BIAS, class EPILOGUE>
struct RammerGemmProblem {
  using Batch = BATCH;
  using Output = OUTPUT;
  using Alpha = ALPHA;
  using Bias = BIAS;
  using Epilogue = EPILOGUE;
};

// The finished sum v of element (m, n) of batch bb, output index o, from K chunk ks:
// stored as Epilogue(Alpha(v) + bias); split-K (SPLIT): added into the
// zeroed output, the bias by the first chunk alone, the epilogue left to
// the chunk that arrives last (rammer_gemm_finish).
template <class I, class P, bool SPLIT, class... Reads>
__device__ __forceinline__ void rammer_gemm_store(I o, I bb, I ks, I m, I n, float v, const float* c, float* out,
                                                  RammerGemmInput<Reads>... extra) {
  if constexpr (SPLIT) {
    if constexpr (P::Bias::present)
      atomicAdd(&out[o], P::Alpha::apply(v) + (ks == 0 ? P::Bias::template at<I>(c, bb, m, n) : 0.0f));
    else
      atomicAdd(&out[o], P::Alpha::apply(v));
  } else {
    float p = P::Alpha::apply(v);
    if constexpr (P::Bias::present) p = p + P::Bias::template at<I>(c, bb, m, n);
    rammer_epilogue_store<I, typename P::Epilogue, Reads...>(out, o, p, extra...);
  }
}

// Split-K: the epilogue over the finished sum of output element o (at
// `sum`), read past L1 (splitk.cuh's rammer_ld_cg), by the chunk that
// arrived last.
template <class I, class P, class... Reads>
__device__ __forceinline__ void rammer_gemm_finish(I o, const float* sum, float* out, RammerGemmInput<Reads>... extra) {
  rammer_epilogue_store<I, typename P::Epilogue, Reads...>(out, o, rammer_ld_cg(sum), extra...);
}

#endif  // RAMMER_GEMM_STORE_CUH
