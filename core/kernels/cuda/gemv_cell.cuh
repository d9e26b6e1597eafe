// gemv_cell.cuh: a recurrent cell that computes its own recurrent product
// (ops::CellRecurrence; issue #44 item 1: the body
// core/kernels/cell_kernels.cpp used to print). gemv.cuh's
// rammer_gemv_gates sums the product's columns and cell.cuh's cell is
// applied to each element's sums in registers, so the product is never
// stored. After gemv.cuh and cell.cuh.
#ifndef RAMMER_GEMV_CELL_CUH
#define RAMMER_GEMV_CELL_CUH

// Columns [j0, j0 + J) of every gate block of h * w (M batch
// rows, K deep, BLOCKS blocks of H; gemv.cuh), and the cell applied to each
// element's sums there, so the product is never stored.
template <class I, int M, int BLOCKS, int J, long long K, long long NW, long long H, class CELL>
__device__ __forceinline__ void rammer_gemv_cell(int rtask_id, int tid, float* smem, const float* __restrict__ h,
                                                 const float* __restrict__ w, const float* __restrict__ a0,
                                                 const float* __restrict__ a1, const float* __restrict__ a2,
                                                 const float* __restrict__ a3, float* __restrict__ out0,
                                                 float* __restrict__ out1) {
  const I j0 = (I)rtask_id * J;
  const I cols = (I)H - j0 < J ? (I)H - j0 : J;
  auto cell = [&](int m, int jl, const float* hrv) {
    const I i = (I)m * (I)H + j0 + jl;
    CELL::template run<I>(i, RammerHrFromSums{hrv}, a0, a1, a2, a3, out0, out1);
  };
  rammer_gemv_gates<M, BLOCKS, J, 4, K, NW, H, I>(tid, smem, h, w + j0, cols, (I)K, cell);
}

#endif  // RAMMER_GEMV_CELL_CUH
