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

// The persistent cell (issue #45 item 3): the same product with the rTask's
// slice of W (K x BLOCKS x J columns) in shared memory, loaded by the first
// such rTask on the vEU and kept there for the next step's rTask j, so a
// step reads h and not the layer's weights. The slice sits below `smem`
// (the program's resident region, core/codegen/code_generator.cpp): row k
// at slice[k * S], block b's J columns at slice[k * S + b * J], S = BLOCKS
// * J padded to J mod 32 so the 256 / J groups of a warp (consecutive k)
// hit different banks. Below it, 16 bytes: the tag, the global address of
// the slice the region holds (0: none, set by rammer_resident_begin when
// the kernel starts) and its row length S (the j8 and j32 twins of one
// layer lay out the same first columns differently). A different tag
// (another slice ran here, or this is the first step) loads the slice; the
// tag is uniform over the block, so every thread takes the same branch,
// and both branches pass the same four barriers (two here, two in
// rammer_gemv_gates).
#define RAMMER_RESIDENT_TAG_BYTES 16
__device__ __forceinline__ unsigned long long* rammer_resident_tag(float* smem) {
  return reinterpret_cast<unsigned long long*>(smem) - RAMMER_RESIDENT_TAG_BYTES / 8;
}

// Called once by every block of a kernel whose program keeps a resident
// region: `scratch` is where the rKernels' scratch starts, the region's end.
__device__ __forceinline__ void rammer_resident_begin(float* scratch, int tid) {
  if (tid == 0) *rammer_resident_tag(scratch) = 0ull;
  __syncthreads();
}

template <class I, int M, int BLOCKS, int J, long long K, long long NW, long long H, long long S, class CELL>
__device__ __forceinline__ void rammer_gemv_cell_resident(int rtask_id, int tid, float* smem,
                                                          const float* __restrict__ h, const float* __restrict__ w,
                                                          const float* __restrict__ a0, const float* __restrict__ a1,
                                                          const float* __restrict__ a2, const float* __restrict__ a3,
                                                          float* __restrict__ out0, float* __restrict__ out1) {
  const I j0 = (I)rtask_id * J;
  const I cols = (I)H - j0 < J ? (I)H - j0 : J;
  float* const slice = smem - RAMMER_RESIDENT_TAG_BYTES / 4 - K * S;
  unsigned long long* const tag = rammer_resident_tag(smem);
  const unsigned long long key = (unsigned long long)(w + j0);
  const bool held = tag[0] == key && tag[1] == (unsigned long long)S;
  __syncthreads();  // every thread has read the tag before thread 0 rewrites it
  if (!held) {
    constexpr int THREADS = 256, ROW = BLOCKS * J;
    if (tid < THREADS)
      for (I e = (I)tid; e < (I)K * ROW; e += THREADS) {
        const I k = e / ROW, r = e % ROW;
        const int b = (int)(r / J), jl = (int)(r % J);
        slice[k * (I)S + b * J + jl] = jl < cols ? w[k * (I)NW + (I)b * (I)H + j0 + jl] : 0.0f;
      }
    if (tid == 0) tag[0] = key, tag[1] = (unsigned long long)S;
  }
  __syncthreads();  // the slice is in place (a fixed count of barriers either way: syncCount)
  auto cell = [&](int m, int jl, const float* hrv) {
    const I i = (I)m * (I)H + j0 + jl;
    CELL::template run<I>(i, RammerHrFromSums{hrv}, a0, a1, a2, a3, out0, out1);
  };
  rammer_gemv_gates<M, BLOCKS, J, 4, K, S, J, I>(tid, smem, h, slice, cols, (I)K, cell);
}

#endif  // RAMMER_GEMV_CELL_CUH
