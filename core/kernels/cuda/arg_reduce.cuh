// arg_reduce.cuh: ArgMax and ArgMin along one axis (issue #44 item 1: the
// body core/kernels/arg_kernels.cpp used to print). Output element i scans
// the N inputs INNER apart that start at [i / INNER, 0, i % INNER] and
// writes the position of the first (LAST: the last) extreme as an int word.
// INTS: the input holds int words, compared as ints.
#ifndef RAMMER_ARG_REDUCE_CUH
#define RAMMER_ARG_REDUCE_CUH

template <bool INTS>
struct RammerArgWord {
  using type = float;
  __device__ __forceinline__ static float load(float w) { return w; }
};
template <>
struct RammerArgWord<true> {
  using type = int;
  __device__ __forceinline__ static int load(float w) { return __float_as_int(w); }
};

template <class I, int THREADS, long long CHUNK, long long TOTAL, long long INNER, long long N, bool MAX, bool LAST,
          bool INTS>
__device__ __forceinline__ void rammer_arg_reduce(int rtask_id, int tid, float* smem, const float* __restrict__ in0,
                                                  float* __restrict__ out0) {
  using W = RammerArgWord<INTS>;
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid, [&](I i) {
    const float* p = in0 + (long long)(i / (I)INNER) * (N * INNER) + i % (I)INNER;
    typename W::type best = W::load(p[0]);
    int at = 0;
    for (int k = 1; k < RammerLiteral<N>::value; ++k) {
      const typename W::type v = W::load(p[k * INNER]);
      if (MAX ? (v > best || (LAST && v == best)) : (v < best || (LAST && v == best))) {
        best = v;
        at = k;
      }
    }
    out0[i] = __int_as_float(at);
  });
}

#endif  // RAMMER_ARG_REDUCE_CUH
