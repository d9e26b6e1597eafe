// splitk.cuh: split-K rKernels (GEMM, implicit-GEMM convolution, GEMV)
// whose output has an epilogue (bias, activation, residual add: issue #27
// item 3). Compiled for CUDA, HIP and the host target alike
// (core/kernels/cuda_library.h).
#ifndef RAMMER_SPLITK_CUH
#define RAMMER_SPLITK_CUH

// Every chunk of a tile adds
// its partial sums into the output with atomics; then it counts itself in
// the tile's word of the rKernel's workspace (zeroed before the launch).
// The chunk that arrives last sees every other chunk's sums, so it alone
// applies the epilogue, once per output. Fences order the adds before the
// count and the count before the reads (the host target: an acq_rel RMW);
// the sums are read from L2 (`ld.global.cg`), past the SM's L1, which the
// other SMs' atomics never updated.
__device__ __forceinline__ unsigned rammer_arrive(float* counter) {
#if defined(RAMMER_TARGET_HOST)
  return std::atomic_ref<unsigned>(*reinterpret_cast<unsigned*>(counter)).fetch_add(1u, std::memory_order_acq_rel);
#else
  return atomicAdd(reinterpret_cast<unsigned*>(counter), 1u);
#endif
}
__device__ __forceinline__ float rammer_ld_cg(const float* p) {
#if defined(RAMMER_TARGET_CUDA)
  return __ldcg(p);
#elif defined(RAMMER_TARGET_HOST)
  return *p;
#else
  return *(const volatile float*)p;
#endif
}

// Calls `ep(mi, ni)` for every element of the TM x TN tile on threads
// tid < NT, if this chunk is the last of `split` to arrive at `counter`.
// Every thread of the rTask reaches its three barriers; smem[0] carries
// the verdict between them.
template <int TM, int TN, int NT, class EP>
__device__ __forceinline__ void rammer_splitk_epilogue(int tid, float* smem, float* counter, unsigned split, EP& ep) {
  __threadfence();
  __syncthreads();
  if (tid == 0) smem[0] = rammer_arrive(counter) == split - 1u ? 1.0f : 0.0f;
  __syncthreads();
  const bool last = smem[0] != 0.0f;
  __syncthreads();
  if (!last || tid >= NT) return;
  __threadfence();
  for (int e = tid; e < TM * TN; e += NT) ep(e / TN, e % TN);
}

#endif  // RAMMER_SPLITK_CUH
