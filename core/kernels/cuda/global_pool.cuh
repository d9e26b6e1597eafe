// global_pool.cuh: GlobalAveragePool and GlobalMaxPool, each [N, C] plane
// of PLANE contiguous elements reduced to one value (issue #44 item 1: the
// family's body as a template; the generator in core/kernels/pool_kernels.cpp
// emits only the instantiation). Three ways to cut the planes into rTasks:
// a thread per plane, a block per plane, a warp per plane. Built on
// block_reduce.cuh; compiled for CUDA, HIP and the host target alike.
#ifndef RAMMER_GLOBAL_POOL_CUH
#define RAMMER_GLOBAL_POOL_CUH

// The merge, its start value and the finish (the mean divides by PLANE).
template <bool MAX>
struct RammerGlobalPool {
  using Op = RammerSumOp;
  __device__ __forceinline__ static float init() { return 0.0f; }
  template <long long PLANE>
  __device__ __forceinline__ static float finish(float acc) { return acc / static_cast<float>(PLANE); }
};
template <>
struct RammerGlobalPool<true> {
  using Op = RammerNanMaxOp;
  __device__ __forceinline__ static float init() { return -INFINITY; }
  template <long long PLANE>
  __device__ __forceinline__ static float finish(float acc) { return acc; }
};

// A thread per plane, T planes per rTask, no barriers. I: the index type
// (int where every index fits).
template <class I, int T, long long PLANES, long long PLANE, bool MAX>
__device__ __forceinline__ void rammer_global_pool_thread(int rtask_id, int tid, float* smem, const float* in0,
                                                         float* out0) {
  using P = RammerGlobalPool<MAX>;
  (void)smem;
  if (tid >= T) return;
  const I p = (I)rtask_id * T + tid;
  if (p >= (I)PLANES) return;
  const float* xp = in0 + p * (I)PLANE;
  float acc = P::init();
  for (int j = 0; j < (int)PLANE; ++j) acc = P::Op::apply(acc, xp[j]);
  out0[p] = P::template finish<PLANE>(acc);
}

// A block of T threads per plane (the rTask is the plane): strided partial
// results, then block_reduce.cuh's tree in smem[0..T).
template <class I, int T, long long PLANE, bool MAX>
__device__ __forceinline__ void rammer_global_pool_block(int rtask_id, int tid, float* smem, const float* in0,
                                                         float* out0) {
  using P = RammerGlobalPool<MAX>;
  const float* xp = in0 + (I)rtask_id * (I)PLANE;
  float acc = P::init();
  if (tid < T)
    for (int j = tid; j < (int)PLANE; j += T) acc = P::Op::apply(acc, xp[j]);
  acc = rammer_segment_reduce<T, T, typename P::Op>(tid, smem, acc);
  if (tid == 0) out0[rtask_id] = P::template finish<PLANE>(acc);
}

// A warp of LANES per plane, ROWS planes per rTask (T = ROWS * LANES): the
// lanes read one plane's consecutive elements together.
template <class I, int T, int ROWS, int LANES, long long PLANES, long long PLANE, bool MAX>
__device__ __forceinline__ void rammer_global_pool_warp(int rtask_id, int tid, float* smem, const float* in0,
                                                        float* out0) {
  using P = RammerGlobalPool<MAX>;
  const I p = (I)rtask_id * ROWS + (tid / LANES);
  const int lane = tid % LANES;
  const bool active = tid < T && p < (I)PLANES;
  float acc = P::init();
  if (active) {
    const float* xp = in0 + p * (I)PLANE;
    for (int j = lane; j < (int)PLANE; j += LANES) acc = P::Op::apply(acc, xp[j]);
  }
  acc = rammer_segment_reduce<T, LANES, typename P::Op>(tid, smem, acc);
  if (active && lane == 0) out0[p] = P::template finish<PLANE>(acc);
}

#endif  // RAMMER_GLOBAL_POOL_CUH
