#pragma once
// The tiled-GEMM skeleton shared by the MatMul/Gemm and implicit-GEMM Conv
// rKernels: how rTask ids map to (batch, K split, tile row, tile column), the
// per-operator cost figures, and the CUDA text of the tiled loop into which
// each operator splices its own operand loads and epilogue.
#include <cstdint>
#include <string>

namespace rammer::kernels {

// One output tile of TM x TN computed by (TM/RM) x (TN/RN) threads, each
// owning an RM x RN micro-tile, stepping through K by TK via shared memory.
struct GemmTile {
  int tm = 64, tn = 64, tk = 16, rm = 4, rn = 4;

  int tx() const { return tn / rn; }  // threads along N (the fast thread dim)
  int ty() const { return tm / rm; }
  int threads() const { return tx() * ty(); }
  // A tile [TK][TM] and a B tile [TK][TN] of floats.
  int64_t sharedBytes() const { return 4 * static_cast<int64_t>(tk) * (tm + tn); }
  // Accumulators + one column of A and one row of B + addressing.
  int regsEstimate() const { return rm * rn + rm + rn + 40; }
};

// Where the rTasks of a tiled GEMM sit: batch-major, then K split, then tile
// row, then tile column (fastest), so neighbouring ids share A rows.
struct TileGrid {
  int64_t batches = 1, M = 0, N = 0, K = 0;
  int64_t split = 1;   // K chunks (split-K); 1 otherwise
  int64_t kChunk = 0;  // K per chunk, a multiple of TK (K rounded up when split == 1)
  int64_t tilesM = 0, tilesN = 0;

  int64_t numRTasks() const { return batches * split * tilesM * tilesN; }
  int64_t kSteps(const GemmTile& t) const { return kChunk / t.tk; }
  int syncCount(const GemmTile& t) const { return static_cast<int>(2 * kSteps(t)); }

  // The tile one rTask computes, clipped at the matrix edges.
  struct Pos {
    int64_t batch = 0, split = 0, m0 = 0, n0 = 0, rows = 0, cols = 0, k0 = 0, kLen = 0;
  };
  Pos locate(int64_t rtask, const GemmTile& t) const;
};

// `split` > 1 cuts K into that many chunks (each a multiple of TK; the
// count is reduced when fewer chunks already cover K).
TileGrid makeTileGrid(int64_t batches, int64_t M, int64_t N, int64_t K, const GemmTile& tile, int64_t split = 1);

// Global-memory traffic of a tiled GEMM: every tile reads its A rows and B
// columns over its K range and writes its outputs (split-K: one
// read-modify-write per chunk, plus the zeroing pass). `epilogueReadsPerOutput`
// counts extra reads per output element (bias, Gemm's C).
double tiledGemmBytes(const TileGrid& g, const GemmTile& t, double epilogueReadsPerOutput);

// Operator-specific pieces of the CUDA tiled GEMM. Code sees `I` (the index
// type), `bb` (batch) and `ks` (K chunk) as constants of the rTask, and:
//   prologue: statements run once per rTask (e.g. batch offsets);
//   loadA:    sets `float v` to A(m, k) for in-range `I m, k`;
//   loadB:    sets `float v` to B(k, n) for in-range `I k, n`;
//   store:    consumes the accumulated `float v` of in-range output (m, n).
struct GemmCudaParts {
  std::string function;
  int numInputs = 0, numOutputs = 1;
  bool wideIndex = false;  // 64-bit indices (some tensor has >= 2^31 elements)
  std::string prologue, loadA, loadB, store;
  // Which operand index is contiguous in memory, to pick coalesced load order.
  bool aKContiguous = true, bNContiguous = true;
};

std::string tiledGemmCuda(const GemmCudaParts& parts, const GemmTile& tile, const TileGrid& grid);

// `__device__ void name(int rtask_id, int tid, float* smem, const float* in0, ..., float* out0, ...)`
std::string tileCudaSignature(const std::string& function, int numInputs, int numOutputs);

// A float literal CUDA parses back to the same value (non-finite values as bit patterns).
std::string tileCudaFloat(float v);

// Adds a rows x cols tile into dst (row stride ldd) with atomic float adds,
// so split-K rTasks running on several CPU threads never lose an update.
void atomicAddTile(float* dst, int64_t ldd, const float* src, int64_t lds, int64_t rows, int64_t cols);

inline int64_t ceilDiv64(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace rammer::kernels
