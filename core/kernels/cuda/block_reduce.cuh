// block_reduce.cuh: a value reduced across the threads of an rTask through
// shared memory (issue #27 item 6), for the row-wise rKernels (softmax,
// layer norm, pooling and reductions over a plane or a row). Compiled into
// rammer as text (core/kernels/cuda_library.h) and written once into every
// generated program that uses it, before the files that build on it.
//
// A tree in shared memory rather than warp shuffles: the same text runs on
// CUDA, HIP (64-lane wavefronts) and the host target, whose CUDA threads are
// fibers that meet only at __syncthreads.
#ifndef RAMMER_BLOCK_REDUCE_CUH
#define RAMMER_BLOCK_REDUCE_CUH

// The merges, as types so that the loop below inlines them.
struct RammerMaxOp {
  __device__ __forceinline__ static float apply(float a, float b) { return b > a ? b : a; }
};
struct RammerSumOp {
  __device__ __forceinline__ static float apply(float a, float b) { return a + b; }
};
struct RammerProdOp {
  __device__ __forceinline__ static float apply(float a, float b) { return a * b; }
};
// ONNX's max and min reductions propagate a NaN: once one is seen it stays.
struct RammerNanMaxOp {
  __device__ __forceinline__ static float apply(float a, float b) { return (b > a || b != b) ? b : a; }
};
struct RammerNanMinOp {
  __device__ __forceinline__ static float apply(float a, float b) { return (b < a || b != b) ? b : a; }
};

// Reduces `v` over each group of SEG consecutive threads among the first T
// (SEG a power of two dividing T; SEG == T: the whole rTask) with
// OP::apply(a, b), a the lower thread's value. Every thread of a group gets
// its group's result (with SEG == T, every thread of the block). Uses T
// words of `smem`, and leaves them free again on return. All threads of the
// block must call it: it has 2 + log2(SEG) barriers
// (rammer::kernels::segmentReduceSyncs counts them for the rKernel).
template <int T, int SEG, class OP>
__device__ __forceinline__ float rammer_segment_reduce(int tid, float* smem, float v) {
  static_assert(SEG > 0 && (SEG & (SEG - 1)) == 0 && T % SEG == 0, "groups of a power of two that divide T");
  if (tid < T) smem[tid] = v;
  __syncthreads();
#pragma unroll
  for (int s = SEG / 2; s > 0; s >>= 1) {
    if (tid < T && (tid & (SEG - 1)) < s) smem[tid] = OP::apply(smem[tid], smem[tid + s]);
    __syncthreads();
  }
  if (SEG == T) v = smem[0];
  else if (tid < T) v = smem[tid & ~(SEG - 1)];
  __syncthreads();
  return v;
}

#endif  // RAMMER_BLOCK_REDUCE_CUH
