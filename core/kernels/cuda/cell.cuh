// cell.cuh: the recurrent cells' element-wise arithmetic (issue #44 item 1:
// the bodies core/kernels/cell_kernels.cpp used to print), LstmCell and the
// three GRU steps (GruGates, GruCandidate, GruCell; core/ops/rnn/cell_ops.h).
// Element i of the [batch, H] outputs is batch row i / H, column i % H. A
// cell type's `run` computes one element from the recurrent product and
// four more inputs a0..a3 (which ones, per type below); its activations F,
// G, HA and CLIP are the generated part (local types with `static float
// apply(float)`, instantiation.h's cudaExpressionOp). The recurrent product
// h * R^T comes from an input (RammerHrFromInput) or, in the GEMV cell that
// computes it, from the sums in registers (RammerHrFromSums, gemv_cell.cuh).
// An input the operator leaves out reads as 0 (HAS_*).
#ifndef RAMMER_CELL_CUH
#define RAMMER_CELL_CUH

template <bool HAS, class O>
__device__ __forceinline__ float rammer_cell_read(const float* p, O offset) {
  return HAS ? p[offset] : 0.0f;
}

// Block BLK of the recurrent product at `offset` of the hr input.
struct RammerHrFromInput {
  const float* hr;
  template <int BLK, class O>
  __device__ __forceinline__ float at(O offset) const {
    return hr[offset];
  }
};
// Block BLK of this element's recurrent sums.
struct RammerHrFromSums {
  const float* sums;
  template <int BLK, class O>
  __device__ __forceinline__ float at(O) const {
    return sums[BLK];
  }
};

// A gate's sum before its activation: block BLK of the batch row of xw
// that starts at xwRow, plus block BLK of the bias, plus (HAS_HR) block
// HR_BLK of the recurrent product at hrOffset.
template <int H, int BLK, int HR_BLK, bool HAS_XW, bool HAS_B, bool HAS_HR, class HR, class O>
__device__ __forceinline__ float rammer_cell_gate(const float* __restrict__ xw, const float* __restrict__ b, HR hr,
                                                  int xwRow, int j, O hrOffset) {
  float g = (rammer_cell_read<HAS_XW>(xw, xwRow + BLK * H + j) + rammer_cell_read<HAS_B>(b, BLK * H + j));
  if (HAS_HR) g = g + hr.template at<HR_BLK>(hrOffset);
  return g;
}

// LstmCell. a0 = xw [B, 4H] (gates i, o, f, c), a1 = bias [4H], a2 = c
// [B, H], a3 = peepholes [3H] (i, o, f); out0 = h, out1 = c.
template <int H, bool HAS_XW, bool HAS_B, bool HAS_HR, bool HAS_C, bool HAS_P, bool INPUT_FORGET, bool OUT0,
          bool OUT1, class F, class G, class HA, class CLIP>
struct RammerLstmCell {
  template <class I, class HR>
  __device__ __forceinline__ static void run(I i, HR hr, const float* __restrict__ xw, const float* __restrict__ b,
                                             const float* __restrict__ c, const float* __restrict__ p,
                                             float* __restrict__ out0, float* __restrict__ out1) {
    const int bb = (int)(i / H), j = (int)(i % H);
    const int row = bb * (4 * H);  // of xw and hr, both [B, 4H]
    float gi = rammer_cell_gate<H, 0, 0, HAS_XW, HAS_B, HAS_HR>(xw, b, hr, row, j, row + 0 * H + j);
    float go = rammer_cell_gate<H, 1, 1, HAS_XW, HAS_B, HAS_HR>(xw, b, hr, row, j, row + 1 * H + j);
    float gf = rammer_cell_gate<H, 2, 2, HAS_XW, HAS_B, HAS_HR>(xw, b, hr, row, j, row + 2 * H + j);
    float gc = rammer_cell_gate<H, 3, 3, HAS_XW, HAS_B, HAS_HR>(xw, b, hr, row, j, row + 3 * H + j);
    float cp = rammer_cell_read<HAS_C>(c, bb * H + j);
    if (HAS_P) gi = gi + p[j] * cp;
    gi = F::apply(CLIP::apply(gi));
    if (INPUT_FORGET) {
      gf = 1.0f - gi;
    } else {
      if (HAS_P) gf = gf + p[2 * H + j] * cp;
      gf = F::apply(CLIP::apply(gf));
    }
    gc = G::apply(CLIP::apply(gc));
    float cn = gf * cp + gi * gc;
    if (HAS_P) go = go + p[H + j] * cn;
    go = F::apply(CLIP::apply(go));
    float t = HA::apply(CLIP::apply(cn));
    if (OUT0) out0[i] = go * t;
    if (OUT1) out1[i] = cn;
  }
};

// GruGates: z and r. a0 = xw [B, 3H] (blocks z, r, h), a1 = bias [3H], a2 =
// h [B, H]; the product hr is [B, 2H]. out0 = z, out1 = r (.) h.
template <int H, bool HAS_XW, bool HAS_B, bool HAS_HR, bool HAS_H, bool OUT0, bool OUT1, class F, class CLIP>
struct RammerGruGates {
  template <class I, class HR>
  __device__ __forceinline__ static void run(I i, HR hr, const float* __restrict__ xw, const float* __restrict__ b,
                                             const float* __restrict__ h, const float*, float* __restrict__ out0,
                                             float* __restrict__ out1) {
    const int bb = (int)(i / H), j = (int)(i % H);
    float z = rammer_cell_gate<H, 0, 0, HAS_XW, HAS_B, HAS_HR>(xw, b, hr, bb * (3 * H), j, bb * (2 * H) + j);
    float r = rammer_cell_gate<H, 1, 1, HAS_XW, HAS_B, HAS_HR>(xw, b, hr, bb * (3 * H), j, bb * (2 * H) + H + j);
    z = F::apply(CLIP::apply(z));
    r = F::apply(CLIP::apply(r));
    if (OUT0) out0[i] = z;
    if (OUT1) out1[i] = HAS_H ? r * h[i] : 0.0f;
  }
};

// GruCandidate: the new state from z. a0 = xw [B, 3H], a1 = bias [3H], a2 =
// z [B, H], a3 = h [B, H]; the product hr is (r (.) h) * R_h^T [B, H].
template <int H, bool HAS_XW, bool HAS_B, bool HAS_HR, bool HAS_Z, bool HAS_H, class G, class CLIP>
struct RammerGruCandidate {
  template <class I, class HR>
  __device__ __forceinline__ static void run(I i, HR hr, const float* __restrict__ xw, const float* __restrict__ b,
                                             const float* __restrict__ zs, const float* __restrict__ h,
                                             float* __restrict__ out0, float*) {
    const int bb = (int)(i / H), j = (int)(i % H);
    float ht = rammer_cell_gate<H, 2, 0, HAS_XW, HAS_B, HAS_HR>(xw, b, hr, bb * (3 * H), j, i);
    ht = G::apply(CLIP::apply(ht));
    float z = rammer_cell_read<HAS_Z>(zs, i);
    out0[i] = (1.0f - z) * ht + z * rammer_cell_read<HAS_H>(h, i);
  }
};

// GruCell: a whole GRU step. a0 = xw [B, 3H], a1 = bias [3H] (Wb + Rb for
// z and r, Wb for h), a2 = Rb_h [H] (inside the reset product), a3 = h [B,
// H]; the product hr is [B, 3H].
template <int H, bool HAS_XW, bool HAS_B, bool HAS_HR, bool HAS_RBH, bool HAS_H, class F, class G, class CLIP>
struct RammerGruCell {
  template <class I, class HR>
  __device__ __forceinline__ static void run(I i, HR hr, const float* __restrict__ xw, const float* __restrict__ b,
                                             const float* __restrict__ rbh, const float* __restrict__ h,
                                             float* __restrict__ out0, float*) {
    const int bb = (int)(i / H), j = (int)(i % H);
    const int row = bb * (3 * H);  // of xw and hr, both [B, 3H]
    float z = rammer_cell_gate<H, 0, 0, HAS_XW, HAS_B, HAS_HR>(xw, b, hr, row, j, row + j);
    float r = rammer_cell_gate<H, 1, 1, HAS_XW, HAS_B, HAS_HR>(xw, b, hr, row, j, row + H + j);
    float ht = rammer_cell_gate<H, 2, 2, HAS_XW, HAS_B, false>(xw, b, hr, row, j, row + 2 * H + j);
    z = F::apply(CLIP::apply(z));
    r = F::apply(CLIP::apply(r));
    ht = ht + r * ((HAS_HR ? hr.template at<2>(row + 2 * H + j) : 0.0f) + rammer_cell_read<HAS_RBH>(rbh, j));
    ht = G::apply(CLIP::apply(ht));
    out0[i] = (1.0f - z) * ht + z * rammer_cell_read<HAS_H>(h, i);
  }
};

// The element-wise cell rKernel: CHUNK elements per rTask, the product
// read from `hr`.
template <class I, int THREADS, long long CHUNK, long long TOTAL, class CELL>
__device__ __forceinline__ void rammer_cell(int rtask_id, int tid, float* smem, const float* __restrict__ hr,
                                            const float* __restrict__ a0, const float* __restrict__ a1,
                                            const float* __restrict__ a2, const float* __restrict__ a3,
                                            float* __restrict__ out0, float* __restrict__ out1) {
  (void)smem;
  rammer_element_loop<I, THREADS, CHUNK, TOTAL>(
      rtask_id, tid, [&](I i) { CELL::template run<I>(i, RammerHrFromInput{hr}, a0, a1, a2, a3, out0, out1); });
}

#endif  // RAMMER_CELL_CUH
