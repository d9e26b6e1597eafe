// softmax.cuh: the Softmax and LogSoftmax rKernels' bodies (issue #27
// item 6); needs block_reduce.cuh before it. A row is N elements S apart
// (S = 1: the softmax axis is innermost); row r starts at
// (r / S) * N * S + r % S. I is the index type (int, or long long for
// tensors past 2^31 elements). Each variant's rKernel (softmax_kernels.cpp)
// states its barriers, threads and shared memory; the CPU tile there is
// the reference these bodies are tested against.
#ifndef RAMMER_SOFTMAX_CUH
#define RAMMER_SOFTMAX_CUH

template <class I, int N, int S>
struct RammerSoftmaxRow {
  const float* p;
  float* q;
  __device__ __forceinline__ RammerSoftmaxRow(const float* in, float* out, I row) {
    const I base = (row / S) * ((I)N * S) + row % S;
    p = in + base;
    q = out + base;
  }
  // Writes the row's elements first, first + step, ... from its maximum m
  // and sum of exp(x - m).
  template <bool LOG>
  __device__ __forceinline__ void write(float m, float sum, int first, int step) const {
    for (int k = first; k < N; k += step) q[k * S] = LOG ? p[k * S] - m - logf(sum) : expf(p[k * S] - m) / sum;
  }
};

// One thread per row, ROWS rows per rTask, COUNT rows in all.
template <class I, int N, int S, int ROWS, long long COUNT, bool LOG>
__device__ __forceinline__ void rammer_softmax_rows(int rtask_id, int tid, const float* __restrict__ in,
                                                    float* __restrict__ out) {
  if (tid >= ROWS) return;
  const I row = (I)rtask_id * ROWS + tid;
  if (row >= (I)COUNT) return;
  const RammerSoftmaxRow<I, N, S> r(in, out, row);
  float m = r.p[0];
  for (int k = 1; k < N; ++k) m = r.p[k * S] > m ? r.p[k * S] : m;
  float sum = 0.0f;
  for (int k = 0; k < N; ++k) sum += expf(r.p[k * S] - m);
  r.template write<LOG>(m, sum, 0, 1);
}

// ROWS rows per rTask, a group of LANES threads per row: the groups stride
// their rows and reduce the maximum, then the sum, in shared memory (ROWS x
// LANES words). ROWS = 1: a whole rTask per row (the block variant); LANES
// = 32 and S = 1: a warp reads its row's consecutive elements together.
template <class I, int N, int S, int ROWS, int LANES, long long COUNT, bool LOG>
__device__ __forceinline__ void rammer_softmax_groups(int rtask_id, int tid, float* smem, const float* __restrict__ in,
                                                      float* __restrict__ out) {
  enum : int { T = ROWS * LANES };
  const I first = (I)rtask_id * ROWS + tid / LANES;
  const int lane = tid % LANES;
  const bool active = tid < T && first < (I)COUNT;
  const RammerSoftmaxRow<I, N, S> r(in, out, active ? first : (I)0);
  float m = -INFINITY;
  if (active)
    for (int k = lane; k < N; k += LANES) m = r.p[k * S] > m ? r.p[k * S] : m;
  m = rammer_segment_reduce<T, LANES, RammerMaxOp>(tid, smem, m);
  float sum = 0.0f;
  if (active)
    for (int k = lane; k < N; k += LANES) sum += expf(r.p[k * S] - m);
  sum = rammer_segment_reduce<T, LANES, RammerSumOp>(tid, smem, sum);
  if (active) r.template write<LOG>(m, sum, lane, LANES);
}

// Long rows: one row per rTask, T threads; the maximum and the sum found in
// one pass (the sum rescaled whenever the maximum grows), so the row is
// read twice instead of three times. The threads' (max, sum) pairs merge in
// a tree over 2T words of shared memory: [0, T) maxima, [T, 2T) sums.
// Barriers: 2 + log2(T).
template <class I, int N, int S, int T, bool LOG>
__device__ __forceinline__ void rammer_softmax_online(int rtask_id, int tid, float* smem, const float* __restrict__ in,
                                                      float* __restrict__ out) {
  const RammerSoftmaxRow<I, N, S> r(in, out, (I)rtask_id);
  const bool active = tid < T;
  float m = -INFINITY, sum = 0.0f;
  if (active)
    for (int k = tid; k < N; k += T) {
      const float x = r.p[k * S];
      if (x > m) {
        sum = sum * expf(m - x) + 1.0f;
        m = x;
      } else if (m != -INFINITY) {
        sum += expf(x - m);
      }
    }
  if (active) {
    smem[tid] = m;
    smem[T + tid] = sum;
  }
  __syncthreads();
#pragma unroll
  for (int h = T / 2; h > 0; h >>= 1) {
    if (tid < h) {
      const float am = smem[tid], bm = smem[tid + h], mm = am > bm ? am : bm;
      const float as = am == -INFINITY ? 0.0f : smem[T + tid] * expf(am - mm);
      const float bs = bm == -INFINITY ? 0.0f : smem[T + tid + h] * expf(bm - mm);
      smem[tid] = mm;
      smem[T + tid] = as + bs;
    }
    __syncthreads();
  }
  m = smem[0];
  sum = smem[T];
  __syncthreads();
  if (active) r.template write<LOG>(m, sum, tid, T);
}

#endif  // RAMMER_SOFTMAX_CUH
