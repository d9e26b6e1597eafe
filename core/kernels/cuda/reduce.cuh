// reduce.cuh: the ReduceSum family (Sum, Mean, Max, Min, Prod, L1, L2,
// SumSquare, LogSum) over any set of axes (issue #44 item 1: the bodies the
// generator in core/kernels/reduce_kernels.cpp used to print). An output
// element folds COUNT inputs: Kept is the box of kept dims (in output
// order) and Red the box of reduced dims, both index_math.cuh RammerBoxes
// over the input. Three ways to cut the outputs into rTasks: a thread per
// output (element_loop.cuh), a warp per output and a block per output
// (block_reduce.cuh's tree).
#ifndef RAMMER_REDUCE_CUH
#define RAMMER_REDUCE_CUH

// What each input contributes (TERM) and what the fold becomes (FINISH).
enum : int { kRammerTermSame = 0, kRammerTermAbs = 1, kRammerTermSquare = 2 };
enum : int { kRammerFinishNone = 0, kRammerFinishMean = 1, kRammerFinishSqrt = 2, kRammerFinishLog = 3 };

// The value a fold with OP starts from.
template <class OP>
struct RammerFoldStart {
  __device__ __forceinline__ static float value() { return 0.0f; }
};
template <>
struct RammerFoldStart<RammerProdOp> {
  __device__ __forceinline__ static float value() { return 1.0f; }
};
template <>
struct RammerFoldStart<RammerNanMaxOp> {
  __device__ __forceinline__ static float value() { return -INFINITY; }
};
template <>
struct RammerFoldStart<RammerNanMinOp> {
  __device__ __forceinline__ static float value() { return INFINITY; }
};

// One reduction: OP merges (block_reduce.cuh's RammerSumOp, RammerProdOp,
// RammerNanMaxOp or RammerNanMinOp) the TERMs of COUNT inputs.
template <class OP, int TERM, int FINISH, long long COUNT>
struct RammerReduce {
  using Op = OP;
  static constexpr long long count = COUNT;
  __device__ __forceinline__ static float term(float v) {
    return TERM == kRammerTermAbs ? fabsf(v) : TERM == kRammerTermSquare ? v * v : v;
  }
  __device__ __forceinline__ static float finish(float acc) {
    return FINISH == kRammerFinishMean   ? acc / (float)COUNT
           : FINISH == kRammerFinishSqrt ? sqrtf(acc)
           : FINISH == kRammerFinishLog  ? logf(acc)
                                         : acc;
  }
};

// acc merged with the reduced elements j0, j0 + STEP, ... of the output
// whose kept dims start at input offset `base`.
template <class I, class K, class Red, int STEP>
__device__ __forceinline__ float rammer_reduce_fold(float acc, const float* in0, I base, I j0) {
  for (I j = j0; j < (I)K::count; j += STEP) acc = K::Op::apply(acc, K::term(in0[base + Red::template offset<I>(j)]));
  return acc;
}

// A thread per output, CHUNK outputs per rTask; J indexes the input.
template <class I, int THREADS, long long CHUNK, long long TOTAL, class J, class K, class Kept, class Red>
__device__ __forceinline__ void rammer_reduce_thread(int rtask_id, int tid, float* smem, const float* __restrict__ in0,
                                                     float* __restrict__ out0) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(rtask_id, tid, [&](I i) {
    const J base = Kept::template offset<J>((J)i);
    out0[i] = K::finish(rammer_reduce_fold<J, K, Red, 1>(RammerFoldStart<typename K::Op>::value(), in0, base, (J)0));
  });
}

// A warp of LANES per output, ROWS outputs per rTask (T = ROWS * LANES):
// where the reduced dims are innermost, the lanes read consecutive inputs.
template <class I, int T, int ROWS, int LANES, long long OUTPUTS, class K, class Kept, class Red>
__device__ __forceinline__ void rammer_reduce_warp(int rtask_id, int tid, float* smem, const float* __restrict__ in0,
                                                   float* __restrict__ out0) {
  const I first = (I)rtask_id * ROWS + (tid / LANES);
  const int lane = tid % LANES;
  const bool active = tid < T && first < (I)OUTPUTS;
  const I o = active ? first : 0;
  const I base = Kept::template offset<I>(o);
  float acc = RammerFoldStart<typename K::Op>::value();
  if (active) acc = rammer_reduce_fold<I, K, Red, LANES>(acc, in0, base, (I)lane);
  acc = rammer_segment_reduce<T, LANES, typename K::Op>(tid, smem, acc);
  if (active && lane == 0) out0[o] = K::finish(acc);
}

// A block of T threads per output (the rTask is the output).
template <class I, int T, class K, class Kept, class Red>
__device__ __forceinline__ void rammer_reduce_block(int rtask_id, int tid, float* smem, const float* __restrict__ in0,
                                                    float* __restrict__ out0) {
  const I o = rtask_id;
  const I base = Kept::template offset<I>(o);
  float acc = RammerFoldStart<typename K::Op>::value();
  if (tid < T) acc = rammer_reduce_fold<I, K, Red, T>(acc, in0, base, (I)tid);
  acc = rammer_segment_reduce<T, T, typename K::Op>(tid, smem, acc);
  if (tid == 0) out0[o] = K::finish(acc);
}

#endif  // RAMMER_REDUCE_CUH
