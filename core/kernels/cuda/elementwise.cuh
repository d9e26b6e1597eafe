// elementwise.cuh: the element-wise rKernels (issue #44 item 1). Output
// element i is Op::apply of one value of each input; the generator writes
// only Op, the expression (ops/math/fused_expr.h), and says how each input
// is read. Built on element_loop.cuh and index_math.cuh.
#ifndef RAMMER_ELEMENTWISE_CUH
#define RAMMER_ELEMENTWISE_CUH

// How an input of the output's shape or broadcast to it is read at output
// element i: all of it (offset i), one value (offset 0), or along some dims
// (Box: index_math.cuh's RammerBox of the output's dims with the input's
// strides, 0 where it broadcasts).
struct RammerReadSame {
  template <class I>
  __device__ __forceinline__ static I offset(I i) {
    return i;
  }
};
struct RammerReadScalar {
  template <class I>
  __device__ __forceinline__ static I offset(I) {
    return 0;
  }
};
template <class Box>
struct RammerReadBroadcast {
  template <class I>
  __device__ __forceinline__ static I offset(I i) {
    return Box::template offset<I>(i);
  }
};

template <class>
using RammerInputPointer = const float* __restrict__;

// Op: a type with `static float apply(float x0, ...)`; Reads: one per input.
template <class I, int THREADS, long long CHUNK, long long TOTAL, class Op, class... Reads>
__device__ __forceinline__ void rammer_elementwise(int rtask_id, int tid, float* smem, float* __restrict__ out0,
                                                   RammerInputPointer<Reads>... in) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid,
                                                [&](I i) { out0[i] = Op::apply(in[Reads::template offset<I>(i)]...); });
}

#endif  // RAMMER_ELEMENTWISE_CUH
