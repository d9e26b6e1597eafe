// layer_norm.cuh: the LayerNormalization rKernels' bodies (issue #27
// item 6); needs block_reduce.cuh before it. A row is D contiguous
// elements; y = (x - mean) * rsqrt(var + eps) * scale + bias, the mean
// first and then the mean squared deviation, as the reference computes
// them. Scale and bias are D values or one (SCALE1, BIAS1); without a bias
// input `bias` is null and HAS_BIAS false. I is the index type.
#ifndef RAMMER_LAYER_NORM_CUH
#define RAMMER_LAYER_NORM_CUH

template <int D, bool SCALE1, bool HAS_BIAS, bool BIAS1>
struct RammerLayerNormRow {
  const float* p;
  float* q;
  __device__ __forceinline__ float y(int i, float m, float inv, const float* scale, const float* bias) const {
    return (p[i] - m) * inv * scale[SCALE1 ? 0 : i] + (HAS_BIAS ? bias[BIAS1 ? 0 : i] : 0.0f);
  }
};

// One row per rTask; T threads stride it and reduce the sum, then the
// squared deviations, in shared memory (T words).
template <class I, int D, bool SCALE1, bool HAS_BIAS, bool BIAS1, int T>
__device__ __forceinline__ void rammer_layernorm_block(int rtask_id, int tid, float* smem, float eps,
                                                       const float* __restrict__ x, const float* __restrict__ scale,
                                                       const float* __restrict__ bias, float* __restrict__ out) {
  const RammerLayerNormRow<D, SCALE1, HAS_BIAS, BIAS1> r{x + (I)rtask_id * D, out + (I)rtask_id * D};
  const bool active = tid < T;
  float sum = 0.0f;
  if (active)
    for (int i = tid; i < D; i += T) sum += r.p[i];
  sum = rammer_segment_reduce<T, T, RammerSumOp>(tid, smem, sum);
  const float m = sum / (float)D;
  float sq = 0.0f;
  if (active)
    for (int i = tid; i < D; i += T) sq += (r.p[i] - m) * (r.p[i] - m);
  sq = rammer_segment_reduce<T, T, RammerSumOp>(tid, smem, sq);
  const float inv = 1.0f / sqrtf(sq / (float)D + eps);
  if (active)
    for (int i = tid; i < D; i += T) r.q[i] = r.y(i, m, inv, scale, bias);
}

// One thread per row, ROWS rows per rTask, COUNT rows in all.
template <class I, int D, bool SCALE1, bool HAS_BIAS, bool BIAS1, int ROWS, long long COUNT>
__device__ __forceinline__ void rammer_layernorm_rows(int rtask_id, int tid, float eps, const float* __restrict__ x,
                                                      const float* __restrict__ scale, const float* __restrict__ bias,
                                                      float* __restrict__ out) {
  if (tid >= ROWS) return;
  const I row = (I)rtask_id * ROWS + tid;
  if (row >= (I)COUNT) return;
  const RammerLayerNormRow<D, SCALE1, HAS_BIAS, BIAS1> r{x + row * D, out + row * D};
  float sum = 0.0f;
  for (int i = 0; i < D; ++i) sum += r.p[i];
  const float m = sum / (float)D;
  float sq = 0.0f;
  for (int i = 0; i < D; ++i) sq += (r.p[i] - m) * (r.p[i] - m);
  const float inv = 1.0f / sqrtf(sq / (float)D + eps);
  for (int i = 0; i < D; ++i) r.q[i] = r.y(i, m, inv, scale, bias);
}

#endif  // RAMMER_LAYER_NORM_CUH
