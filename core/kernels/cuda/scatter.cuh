// scatter.cuh: ScatterND without reduction (issue #44 item 1: the bodies
// core/kernels/scatter_kernels.cpp used to print). The output is the data
// (in0) with some slices of SLICE elements replaced by update slices (in2).
#ifndef RAMMER_SCATTER_CUH
#define RAMMER_SCATTER_CUH

// Indices baked in: src[s] is the update slice that lands on output slice
// s, or -1 (a table the generator writes beside the rTask function).
template <class I, int THREADS, long long CHUNK, long long TOTAL, long long SLICE, class T>
__device__ __forceinline__ void rammer_scatter_table(int rtask_id, int tid, float* smem, const float* __restrict__ in0,
                                                     const float* __restrict__ in2, float* __restrict__ out0,
                                                     const T* src) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid, [&](I i) {
    const I k = src[i / (I)SLICE];
    out0[i] = k < 0 ? in0[i] : in2[k * (I)SLICE + i % (I)SLICE];
  });
}

// The output slice index tuple `t` of in1 (K words per tuple, index J of it
// onwards, over data dims DIMS...) names, or -1 when an index lies outside
// its dim (a negative one counts from the end).
template <int K, int J, long long... DIMS>
struct RammerScatterTuple {
  __device__ __forceinline__ static long long slice(const float* in1, int t, long long at) {
    (void)in1;
    (void)t;
    return at;
  }
};
template <int K, int J, long long DIM, long long... REST>
struct RammerScatterTuple<K, J, DIM, REST...> {
  __device__ __forceinline__ static long long slice(const float* in1, int t, long long at) {
    long long v = __float_as_int(in1[t * K + J]);
    if (v < 0) v += DIM;
    at = (at < 0 || v < 0 || v >= DIM) ? -1 : at * DIM + v;
    return RammerScatterTuple<K, J + 1, REST...>::slice(in1, t, at);
  }
};

// Indices read at run time: each output element scans all COUNT tuples for
// the last one naming its slice, so duplicates resolve as in the reference
// (the last update wins) without rTasks racing. Tuple: RammerScatterTuple<K, 0, dims...>.
template <class I, int THREADS, long long CHUNK, long long TOTAL, long long SLICE, int COUNT, class Tuple>
__device__ __forceinline__ void rammer_scatter_runtime(int rtask_id, int tid, float* smem,
                                                       const float* __restrict__ in0, const float* __restrict__ in1,
                                                       const float* __restrict__ in2, float* __restrict__ out0) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid, [&](I i) {
    const long long p = (long long)(i / (I)SLICE);
    long long k = -1;
    for (int t = 0; t < COUNT; ++t)
      if (Tuple::slice(in1, t, 0) == p) k = t;
    out0[i] = k < 0 ? in0[i] : in2[k * SLICE + i % (I)SLICE];
  });
}

#endif  // RAMMER_SCATTER_CUH
