#pragma once
// The tiled-GEMM skeleton shared by the MatMul/Gemm and implicit-GEMM Conv
// rKernels: how rTask ids map to (batch, K split, tile row, tile column), the
// per-operator cost figures, and the template arguments of their rTasks
// (core/kernels/cuda/gemm_rtask.cuh).
#include <cstdint>
#include <string>
#include <vector>

#include "core/kernels/instantiation.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

// How an operand of the mainloop reaches shared memory
// (gemm_mainloop.cuh's RAMMER_K_MAJOR, RAMMER_MN_MAJOR, RAMMER_MN_ASYNC).
enum class OperandLayout {
  KMajor,   // contiguous along k: fetched into registers, stored transposed
  MNMajor,  // along m (n), gathered or strided: fetched into registers
  MNAsync,  // along m (n), rows contiguous: cp.async, three stages
};

// One output tile of TM x TN computed by (TM/RM) x (TN/RN) threads, each
// owning RM x RN accumulators (fragments of 4 x 4), stepping through K by TK
// (core/kernels/cuda/gemm_mainloop.cuh). Two register budgets: 8 x 8 per
// thread at 128 registers (2 vEUs of 256 threads per SM), 4 x 4 at 64 (4).
struct GemmTile {
  int tm = 64, tn = 64, tk = 8, rm = 4, rn = 4;
  int budget = 0;  // registers per thread the variant is offered at; 0: by its accumulators

  int tx() const { return tn / rn; }  // threads along N (the fast thread dim)
  int ty() const { return tm / rm; }
  int threads() const { return tx() * ty(); }
  // The registers the variant is built for: NVRTC compiles it without
  // spills within them (tests/core/runtime/mainloop_kernels_test.cpp).
  int registerBudget() const { return budget > 0 ? budget : (rm * rn > 16 ? 128 : 64); }
  // Two or three buffers of As[TK][TM + pad] and Bs[TK][TN + pad], as the
  // mainloop lays them out (RammerGemmTile::SHARED_WORDS; checked by a test).
  int64_t sharedBytes(OperandLayout a, OperandLayout b) const {
    const int stages = a == OperandLayout::MNAsync || b == OperandLayout::MNAsync ? 3 : 2;
    return 4 * stages * static_cast<int64_t>(tk) * (tm + padOf(tm, a) + tn + padOf(tn, b));
  }
  static int padOf(int rows, OperandLayout l) { return l != OperandLayout::KMajor && rows == 16 ? 8 : 4; }
  // The layout of an operand that is not K-major, with `rows` tile rows:
  // cp.async where its rows are contiguous and the chunk map fits the tile.
  OperandLayout mnLayout(int rows, bool contiguous) const {
    return contiguous && rows % 32 == 0 && threads() % (rows / 4) == 0 ? OperandLayout::MNAsync
                                                                        : OperandLayout::MNMajor;
  }
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
  // The mainloop: one barrier per K step and one before the first.
  int syncCount(const GemmTile& t) const { return static_cast<int>(kSteps(t) + 1); }
  // Output tiles; split-K chunks of one tile share its index
  // (rammer_splitk_epilogue's counter word).
  int64_t numTiles() const { return batches * tilesM * tilesN; }
  int64_t tileOf(int64_t rtask) const {
    const int64_t perChunk = tilesM * tilesN;
    return rtask / (perChunk * split) * perChunk + rtask % perChunk;
  }

  // The tile one rTask computes, clipped at the matrix edges.
  struct Pos {
    int64_t batch = 0, split = 0, m0 = 0, n0 = 0, rows = 0, cols = 0, k0 = 0, kLen = 0;
  };
  Pos locate(int64_t rtask, const GemmTile& t) const;
  // The part of its tile rTask `rtask` answers for on the emulator, which
  // copies the reference's numbers (RKernel::written): the whole tile, or,
  // where the K chunks of a split-K tile add into the same elements, chunk
  // ks's band of ceil(rows / split) of its rows, so that each output
  // element is written once and every chunk's timing carries numbers that
  // a missing barrier before it would spoil.
  Pos writtenBand(int64_t rtask, const GemmTile& t) const;
};

// `split` > 1 cuts K into that many chunks (each a multiple of TK; the
// count is reduced when fewer chunks already cover K).
TileGrid makeTileGrid(int64_t batches, int64_t M, int64_t N, int64_t K, const GemmTile& tile, int64_t split = 1);

// Global-memory traffic of a tiled GEMM: every tile reads its A rows and B
// columns over its K range and writes its outputs (split-K: one
// read-modify-write per chunk, plus the zeroing pass). `epilogueReadsPerOutput`
// counts extra reads per output element (bias, Gemm's C).
double tiledGemmBytes(const TileGrid& g, const GemmTile& t, double epilogueReadsPerOutput);

// The CUDA types of a tile with its operands' layouts (gemm_mainloop.cuh's
// RammerGemmTile) and of a grid (gemm_rtask.cuh's RammerTileGrid).
std::string tileArg(const GemmTile& tile, OperandLayout a, OperandLayout b);
std::string gridArg(const TileGrid& grid);

// An instantiation of a GEMM-shaped rTask template (cuda/gemm_rtask.cuh,
// gemv_rtask.cuh): what the generators choose around the sums, as
// cuda/gemm_store.cuh's types, and the rTask function's pointers the
// template takes. The expressions (Gemm's alpha and beta, a fused node's
// epilogue: kernels/epilogue.h) are local types in `locals`.
struct GemmInstance {
  bool wideIndex = false;  // 64-bit indices (some tensor has >= 2^31 elements)
  std::string batch = "RammerBatchStrides<0LL, 0LL>", output;
  std::string alpha = "RammerIdentity", bias = "RammerNoBias", epilogue = "RammerNoEpilogue";
  std::string locals;
  // Operands A and B and the bias (Gemm's C, a convolution's B).
  std::string a = "in0", b = "in1", c = "nullptr";
  // Split-K with an epilogue: the last chunk's counters, a workspace word
  // per tile (useSplitKEpilogue), passed as the function's second output.
  bool workspace = false;
  // The epilogue's other inputs and how each is read (index_math.cuh's RammerRead*).
  std::vector<std::string> extras, reads;

  std::string indexType() const { return wideIndex ? "long long" : "int"; }
  size_t numOutputs() const { return workspace ? 2 : 1; }
  // RammerGemmProblem<batch, output, alpha, bias, epilogue>.
  std::string problem() const;
  // The call of template `name`: the index type, `head`, the problem and
  // the reads as template arguments; rtask_id, tid, smem and the pointers.
  TemplateCall call(const std::string& name, std::vector<std::string> head) const;
};

// Chooses the K chunks of a split-K variant: enough rTasks to give a large
// GPU several per SM (`target` in all), each chunk still at least
// `minChunk` deep. 0 when splitting would not help.
int64_t chooseSplitK(int64_t tiles, int64_t K, int64_t minChunk, int64_t target = 512);

// A float literal CUDA parses back to the same value (non-finite values as bit patterns).
std::string tileCudaFloat(float v);

// Makes `k`, a split-K rKernel over `g` with an epilogue, count its chunks:
// a workspace word per output tile, rammer_splitk_epilogue's three
// barriers, and the finished sums of its `outputs` elements read and
// written once more.
void useSplitKEpilogue(RKernel& k, const TileGrid& g, double outputs);

inline int64_t ceilDiv64(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace rammer::kernels
