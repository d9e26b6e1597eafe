// attention.cuh: the fused attention rKernel's body (issue #27 item 6),
// softmax(Q K^T * scale + mask) V as flash attention. One rTask takes R
// query rows of one batch (BPB rTasks per batch), a thread per row; the
// keys go by in tiles of BC through shared memory (K then V: BC x (D + DV)
// words), two barriers per tile. Each thread keeps its scaled query row and
// its output accumulators in registers, and a running maximum and sum, so
// the scores are never stored: per key, the accumulators are rescaled when
// the maximum grows.
//
// Operands (row-major): q [batch][SQ][D], kt [batch][D][SK] (K already
// transposed), v [batch][SK][DV], out [batch][SQ][DV]. With MASK, row i of
// batch b adds mask[MROW::at(b, i) + j * MK] to key j's score.
#ifndef RAMMER_ATTENTION_CUH
#define RAMMER_ATTENTION_CUH

// Where the mask's row i of batch b starts (key 0): ROW_STRIDE apart, and
// the mask broadcasts over the batch dims its own way, given by Batch (an
// index_math.cuh RammerBox of the batch dims with the mask's strides).
template <long long ROW_STRIDE, class Batch>
struct RammerMaskRows {
  template <class I>
  __device__ __forceinline__ static I at(I b, int i) {
    return (I)i * (I)ROW_STRIDE + Batch::template offset<I>(b);
  }
};

template <class I, int D, int DV, int SQ, int SK, int R, int BC, int BPB, bool MASK, long long MK, class MROW>
__device__ __forceinline__ void rammer_attention_flash(int rtask_id, int tid, float* smem, float scale,
                                                       const float* __restrict__ q, const float* __restrict__ kt,
                                                       const float* __restrict__ v, const float* __restrict__ mask,
                                                       float* __restrict__ out) {
  const I b = rtask_id / BPB;
  const int i = (int)(rtask_id % BPB) * R + tid;
  const bool active = tid < R && i < SQ;
  float* ks = smem;
  float* vs = smem + BC * D;
  float qr[D], acc[DV];
#pragma unroll
  for (int d = 0; d < D; ++d) qr[d] = active ? q[(b * SQ + i) * D + d] * scale : 0.0f;
#pragma unroll
  for (int e = 0; e < DV; ++e) acc[e] = 0.0f;
  float m = -INFINITY, l = 0.0f;
  const I mr = MASK && active ? MROW::template at<I>(b, i) : (I)0;
  for (int j0 = 0; j0 < SK; j0 += BC) {
    __syncthreads();  // the previous tile is used up
    if (tid < R) {
      for (int e = tid; e < BC * D; e += R) {
        const int jj = e / D, d = e % D;
        ks[e] = j0 + jj < SK ? kt[(b * D + d) * SK + j0 + jj] : 0.0f;
      }
      for (int e = tid; e < BC * DV; e += R) {
        const int jj = e / DV, d = e % DV;
        vs[e] = j0 + jj < SK ? v[(b * SK + j0 + jj) * DV + d] : 0.0f;
      }
    }
    __syncthreads();
    if (active) {
      const int n = SK - j0 < BC ? SK - j0 : BC;
      for (int jj = 0; jj < n; ++jj) {
        float x = 0.0f;
#pragma unroll
        for (int d = 0; d < D; ++d) x += qr[d] * ks[jj * D + d];
        if (MASK) x += mask[mr + (I)(j0 + jj) * (I)MK];
        if (x > m) {
          const float cf = expf(m - x);
          l = l * cf + 1.0f;
#pragma unroll
          for (int e = 0; e < DV; ++e) acc[e] = acc[e] * cf + vs[jj * DV + e];
          m = x;
        } else if (m != -INFINITY) {
          const float w = expf(x - m);
          l += w;
#pragma unroll
          for (int e = 0; e < DV; ++e) acc[e] += w * vs[jj * DV + e];
        }
      }
    }
  }
  if (active) {
#pragma unroll
    for (int e = 0; e < DV; ++e) out[(b * SQ + i) * DV + e] = acc[e] / l;
  }
}

#endif  // RAMMER_ATTENTION_CUH
