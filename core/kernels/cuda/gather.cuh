// gather.cuh: Gather and GatherElements with indices read at run time as
// words (issue #44 item 1: the bodies core/kernels/gather_kernels.cpp used
// to print). A negative index counts from the axis' end; one outside the
// axis writes a NaN with every payload bit set (ir/words.h: the reference
// refuses such an index, the generated code marks the element).
#ifndef RAMMER_GATHER_CUH
#define RAMMER_GATHER_CUH

// Turns index k into a place on an axis of AXIS_DIM (a negative one
// counts from the end); false when it lies outside the axis.
template <long long AXIS_DIM>
__device__ __forceinline__ bool rammer_gather_on_axis(long long& k) {
  if (k < 0) k += AXIS_DIM;
  return k >= 0 && k < AXIS_DIM;
}

// Gather: data [outer, AXIS_DIM, INNER], NUM_IDX indices (in1); output
// element i is [o, j, inr].
template <class I, int THREADS, long long CHUNK, long long TOTAL, long long INNER, long long NUM_IDX,
          long long AXIS_DIM>
__device__ __forceinline__ void rammer_gather(int rtask_id, int tid, float* smem, const float* __restrict__ in0,
                                              const float* __restrict__ in1, float* __restrict__ out0) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid, [&](I i) {
    const I inr = i % (I)INNER, t = i / (I)INNER;
    const I j = t % (I)NUM_IDX, o = t / (I)NUM_IDX;
    long long k = __float_as_int(in1[j]);
    out0[i] = rammer_gather_on_axis<AXIS_DIM>(k) ? in0[((long long)o * AXIS_DIM + k) * INNER + inr]
                                                 : __int_as_float(0x7fffffff);
  });
}

// GatherElements: output element i (of the indices' shape) reads the data
// at its own coordinates but the axis one from in1[i]. Rest: the RammerBox
// of the indices' dims with the data's strides, the axis' stride 0;
// AXIS_STRIDE: the data's stride along the axis.
template <class I, int THREADS, long long CHUNK, long long TOTAL, long long AXIS_DIM, long long AXIS_STRIDE, class Rest>
__device__ __forceinline__ void rammer_gather_elements(int rtask_id, int tid, float* smem,
                                                       const float* __restrict__ in0, const float* __restrict__ in1,
                                                       float* __restrict__ out0) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid, [&](I i) {
    const long long off = Rest::template offset<long long>(i);
    long long k = __float_as_int(in1[i]);
    out0[i] = rammer_gather_on_axis<AXIS_DIM>(k) ? in0[off + k * AXIS_STRIDE] : __int_as_float(0x7fffffff);
  });
}

#endif  // RAMMER_GATHER_CUH
