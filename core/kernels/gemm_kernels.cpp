#include "core/kernels/gemm_kernels.h"

#include <algorithm>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "core/kernels/cuda_library.h"
#include "core/kernels/epilogue.h"
#include "core/kernels/instantiation.h"
#include "core/kernels/kernel_source.h"
#include "core/kernels/tile_gemm.h"
#include "core/ops/op_context.h"
#include "core/ops/op_registry.h"

namespace rammer::kernels {

namespace {

// Y[b] = alpha * A[b] * B[b] + beta * C over row-major element strides, which
// covers MatMul's promoted vectors and broadcast batches and Gemm's transposes.
struct GemmProblem {
  int64_t M = 0, N = 0, K = 0;
  std::vector<int64_t> batchDims;           // output batch dims (outermost first)
  std::vector<int64_t> batchA, batchB;      // element stride per batch dim (0: broadcast)
  int64_t sAm = 0, sAk = 0, sBk = 0, sBn = 0;  // A(m, k) = A[m*sAm + k*sAk], B(k, n) = B[k*sBk + n*sBn]
  float alpha = 1.0f, beta = 0.0f;
  bool hasC = false;        // C is present and beta != 0
  int64_t sCm = 0, sCn = 0;  // C(m, n) = C[m*sCm + n*sCn] (0 where broadcast)
  int numInputs = 2;
  bool wideIndex = false;
  Epilogue epilogue;  // FusedGemm / FusedMatMul: applied where each output is stored

  int64_t batches() const {
    int64_t b = 1;
    for (int64_t d : batchDims) b *= d;
    return b;
  }
};

[[noreturn]] void fail(const std::string& msg) { throw ops::OpError(msg); }

const ir::Shape& knownShape(const ir::Graph& g, const ir::Node& n, size_t slot, const char* what) {
  const ir::ValueId v = n.input(slot);
  if (v == ir::kNone) fail(std::string(what) + " is missing");
  const ir::TensorType& t = g.value(v).type;
  if (t.dtype != ir::DType::Float32)
    fail(std::string(what) + " is " + std::string(ir::dtypeName(t.dtype)) + "; rKernels compute float32 only");
  if (!t.fullyKnown()) fail(std::string(what) + " has shape " + ir::shapeToString(t.shape) + "; rKernels need known shapes");
  return t.shape;
}

bool wide(std::initializer_list<int64_t> counts) {
  for (int64_t c : counts)
    if (c >= std::numeric_limits<int32_t>::max()) return true;
  return false;
}

GemmProblem gemmProblem(const ir::Graph& g, const ir::Node& n) {
  GemmProblem p;
  const ir::Shape a = knownShape(g, n, 0, "A"), b = knownShape(g, n, 1, "B");
  if (a.size() != 2 || b.size() != 2)
    fail("A " + ir::shapeToString(a) + " and B " + ir::shapeToString(b) + " must be 2-D");
  const bool tA = n.attrs.getInt("transA", 0) != 0, tB = n.attrs.getInt("transB", 0) != 0;
  p.M = tA ? a[1] : a[0];
  p.K = tA ? a[0] : a[1];
  p.N = tB ? b[0] : b[1];
  if ((tB ? b[1] : b[0]) != p.K) fail("inner dims of A " + ir::shapeToString(a) + " and B " + ir::shapeToString(b) + " differ");
  p.sAm = tA ? 1 : a[1];
  p.sAk = tA ? a[1] : 1;
  p.sBk = tB ? 1 : b[1];
  p.sBn = tB ? b[1] : 1;
  p.alpha = n.attrs.getFloat("alpha", 1.0f);
  p.beta = n.attrs.getFloat("beta", 1.0f);
  p.numInputs = static_cast<int>(n.inputs.size());
  int64_t cCount = 0;
  if (n.input(2) != ir::kNone) {
    const ir::Shape c = knownShape(g, n, 2, "C");
    cCount = ir::numElements(c);
    if (c.size() > 2) fail("C " + ir::shapeToString(c) + " does not broadcast to [M, N]");
    const int64_t rows = c.size() == 2 ? c[0] : 1, cols = c.empty() ? 1 : c.back();
    if ((rows != 1 && rows != p.M) || (cols != 1 && cols != p.N))
      fail("C " + ir::shapeToString(c) + " does not broadcast to [" + std::to_string(p.M) + ", " + std::to_string(p.N) + "]");
    p.hasC = p.beta != 0.0f;
    p.sCm = rows == 1 ? 0 : cols;
    p.sCn = cols == 1 ? 0 : 1;
  }
  p.wideIndex = wide({ir::numElements(a), ir::numElements(b), cCount, p.M * p.N});
  return p;
}

// Element strides of an operand's batch dims aligned to the output's batch
// dims (0 where the operand lacks the dim or has extent 1).
std::vector<int64_t> alignBatchStrides(const ir::Shape& s, size_t ownDims, const ir::Shape& batch, int64_t matrix) {
  std::vector<int64_t> strides(batch.size(), 0);
  int64_t stride = matrix;
  for (size_t i = 0; i < ownDims; ++i) {
    const size_t src = ownDims - 1 - i, dst = batch.size() - 1 - i;
    strides[dst] = s[src] == 1 ? 0 : stride;
    stride *= s[src];
  }
  return strides;
}

GemmProblem matmulProblem(const ir::Graph& g, const ir::Node& n) {
  GemmProblem p;
  const ir::Shape a0 = knownShape(g, n, 0, "A"), b0 = knownShape(g, n, 1, "B");
  if (a0.empty() || b0.empty()) fail("MatMul operands must not be scalars");
  ir::Shape a = a0, b = b0;
  if (a.size() == 1) a.insert(a.begin(), 1);  // [K] -> [1, K]
  if (b.size() == 1) b.push_back(1);          // [K] -> [K, 1]
  p.M = a[a.size() - 2];
  p.K = a.back();
  p.N = b.back();
  if (b[b.size() - 2] != p.K)
    fail("inner dims of A " + ir::shapeToString(a0) + " and B " + ir::shapeToString(b0) + " differ");
  const size_t ra = a.size() - 2, rb = b.size() - 2, r = std::max(ra, rb);
  ir::Shape batch;
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i + ra >= r ? a[i + ra - r] : 1, db = i + rb >= r ? b[i + rb - r] : 1;
    if (da != db && da != 1 && db != 1)
      fail("batch dims of A " + ir::shapeToString(a0) + " and B " + ir::shapeToString(b0) + " do not broadcast");
    batch.push_back(da == 1 ? db : da);
  }
  p.batchA = alignBatchStrides(a, ra, batch, p.M * p.K);
  p.batchB = alignBatchStrides(b, rb, batch, p.K * p.N);
  p.batchDims = batch;
  p.sAm = p.K;
  p.sAk = 1;
  p.sBk = p.N;
  p.sBn = 1;
  p.numInputs = 2;

  // One B for every batch and A's batches back to back: a single taller
  // GEMM [batches*M, K] x [K, N] (the Linear-layer case) tiles better.
  bool bShared = std::all_of(p.batchB.begin(), p.batchB.end(), [](int64_t s) { return s == 0; });
  bool aDense = true;
  int64_t expect = p.M * p.K;
  for (size_t i = batch.size(); i-- > 0;) {
    if (batch[i] != 1 && p.batchA[i] != expect) aDense = false;
    expect *= batch[i];
  }
  if (bShared && aDense && !batch.empty()) {
    p.M *= p.batches();
    p.batchDims.clear();
    p.batchA.clear();
    p.batchB.clear();
  }
  p.wideIndex = wide({ir::numElements(a0), ir::numElements(b0), p.batches() * p.M * p.N});
  return p;
}

// Degenerate extents make a stride meaningless; give it the value the
// CPU GEMM accepts as a leading dimension.
void normaliseStrides(GemmProblem& p) {
  if (p.M == 1) p.sAm = std::max<int64_t>(p.K, 1);
  if (p.N == 1) p.sBn = std::max<int64_t>(p.K, 1);
}

// Batch offsets, the output, alpha, beta * C and the epilogue, as
// cuda/gemm_store.cuh's types; the operands' pointers.
GemmInstance gemmInstance(const GemmProblem& p, const TileGrid& grid) {
  GemmInstance g;
  g.wideIndex = p.wideIndex;
  if (!p.batchDims.empty()) {
    std::string dims;  // innermost first
    for (size_t i = p.batchDims.size(); i-- > 0;)
      dims += (dims.empty() ? "" : ", ") + llArg(p.batchDims[i]) + ", " + llArg(p.batchA[i]) + ", " + llArg(p.batchB[i]);
    g.batch = "RammerBatchDims<" + dims + ">";
  }
  g.output = "RammerGemmOutput<" + llArg(p.M) + ", " + llArg(p.N) + ">";
  if (p.alpha != 1.0f) {
    g.alpha = "Alpha";
    g.locals += cudaExpressionOp("Alpha", 1, "", tileCudaFloat(p.alpha) + " * x0");
  }
  if (p.hasC) {
    g.locals += cudaExpressionOp("Beta", 1, "", tileCudaFloat(p.beta) + " * x0");
    g.bias = "RammerBias<Beta, 0LL, " + llArg(p.sCm) + ", " + llArg(p.sCn) + ">";
    g.c = "in2";
  }
  // Split-K: outputs start at zero, the first K chunk alone adds the bias,
  // and the last chunk to arrive applies the epilogue to the finished sums
  // (its counters in the workspace, the function's second output).
  p.epilogue.instantiate(g);
  g.workspace = grid.split > 1 && p.epilogue.present();
  return g;
}

RKernel makeKernel(const GemmProblem& p, ir::NodeId node, const GemmTile& tile, int64_t split) {
  const TileGrid grid = makeTileGrid(p.batches(), p.M, p.N, p.K, tile, split);
  RKernel k;
  k.name = split > 1 ? fmt::format("gemm_{}x{}_splitk{}", tile.tm, tile.tn, grid.split)
                     : fmt::format("gemm_{}x{}", tile.tm, tile.tn);
  k.family = split > 1 ? "gemm_splitk" : "gemm";
  k.params = {{"tile_m", tile.tm}, {"tile_n", tile.tn}, {"tile_k", tile.tk}, {"split_k", grid.split},
              {"M", p.M},          {"N", p.N},          {"K", p.K},          {"batch", p.batches()},
              {"register_budget", tile.registerBudget()}};
  k.numRTasks = grid.numRTasks();
  k.block = Dim3{tile.tx(), tile.ty(), 1};
  k.regsEstimate = tile.registerBudget();
  k.syncCount = grid.syncCount(tile);
  k.flops = 2.0 * static_cast<double>(p.batches()) * static_cast<double>(p.M) * static_cast<double>(p.N) *
            static_cast<double>(p.K);
  const double outputs = static_cast<double>(p.batches() * p.M * p.N);
  k.flops += outputs * p.epilogue.flopsPerOutput();
  k.bytes = tiledGemmBytes(grid, tile, (p.hasC ? 1.0 : 0.0) + p.epilogue.bytesPerOutput() / 4.0);
  k.zeroOutputsFirst = grid.split > 1;
  k.cudaFunction = fmt::format("rk_n{}_{}", node, k.name);
  // A is read along k where it is contiguous along k (row-major A), B
  // along n where it is contiguous along n (row-major B): coalesced loads,
  // by cp.async where the rows are contiguous.
  const OperandLayout la = p.sAk == 1 || p.sAm != 1 ? OperandLayout::KMajor : tile.mnLayout(tile.tm, p.sAm == 1);
  const OperandLayout lb = p.sBn != 1 && p.sBk == 1 ? OperandLayout::KMajor : tile.mnLayout(tile.tn, p.sBn == 1);
  k.sharedBytes = tile.sharedBytes(la, lb);
  const GemmInstance g = gemmInstance(p, grid);
  useCudaLibrary(k, kGemmRTask);
  if (g.workspace) useSplitKEpilogue(k, grid, outputs);
  k.cudaSource = cudaInstantiation(
      k.cudaFunction, static_cast<size_t>(p.numInputs), g.numOutputs(),
      g.call("rammer_gemm_rtask", {tileArg(tile, la, lb), gridArg(grid),
                                   "RammerStrided<" + llArg(p.sAm) + ", " + llArg(p.sAk) + ">",
                                   "RammerStrided<" + llArg(p.sBn) + ", " + llArg(p.sBk) + ">"}));
  k.written = [p, grid, tile](int64_t rtask, std::vector<WrittenRun>& runs) {
    const TileGrid::Pos pos = grid.writtenBand(rtask, tile);
    if (pos.cols <= 0) return;
    for (int64_t i = 0; i < pos.rows; ++i)
      runs.push_back(WrittenRun{0, (pos.batch * p.M + pos.m0 + i) * p.N + pos.n0, pos.cols, 1});
  };
  return k;
}

// ---- skinny GEMM / GEMV (M <= 16), core/kernels/cuda/gemv.cuh ----

constexpr int64_t kGemvMaxM = 16;

// W contiguous along k (a Gemm with transB: PyTorch's Linear) or along n.
bool gemvApplies(const GemmProblem& p) {
  return p.M <= kGemvMaxM && p.sAk == 1 && (p.sBk == 1 || p.sBn == 1) && !p.wideIndex;
}

RKernel gemvKernel(const GemmProblem& p, ir::NodeId node) {
  const bool kMajor = p.sBk == 1 && p.N > 1;
  // Outputs per warp (K-major) or per thread (N-major): 16 accumulators at most.
  const int per = kMajor ? (p.M <= 2 ? 4 : (p.M <= 4 ? 2 : 1)) : (p.M <= 4 ? 4 : 1);
  const int64_t cols = kMajor ? 8 * per : 256 * per;
  const GemmTile tile{static_cast<int>(kGemvMaxM), static_cast<int>(cols), 4, 4, 4};
  const int64_t blocks = p.batches() * ceilDiv64(p.N, cols);
  // Enough rTasks for every vEU of a large GPU, chunks of >= 256 k.
  const int64_t split = std::max<int64_t>(1, chooseSplitK(blocks, p.K, 256, 4 * 132));
  const TileGrid grid = makeTileGrid(p.batches(), p.M, p.N, p.K, tile, split);
  // K-major: 512 B per warp per column per step, so 4 columns keep 16 KB
  // per rTask (64 KB per SM at 4 vEUs) in flight without unrolling, which
  // would spill at 64 registers.
  const int unroll = kMajor ? 1 : 4;

  RKernel k;
  k.name = fmt::format("gemv_{}{}", kMajor ? "kmajor" : "nmajor", grid.split > 1 ? fmt::format("_splitk{}", grid.split) : "");
  k.family = "gemv";
  k.params = {{"columns_per_rtask", cols}, {"split_k", grid.split}, {"M", p.M}, {"N", p.N},
              {"K", p.K},                  {"batch", p.batches()},  {"register_budget", 64}};
  k.numRTasks = grid.numRTasks();
  k.block = Dim3{256, 1, 1};
  k.regsEstimate = 64;
  k.sharedBytes = kMajor ? 4 * 8 * 32 * p.M * per : 0;
  k.syncCount = kMajor ? 2 : 0;
  k.flops = 2.0 * static_cast<double>(p.batches()) * static_cast<double>(p.M) * static_cast<double>(p.N) *
            static_cast<double>(p.K);
  // W once, A once per column block, the outputs (split-K: read-modify-write per chunk).
  const double b = static_cast<double>(p.batches());
  k.bytes = 4.0 * b *
            (static_cast<double>(p.K * p.N) + static_cast<double>(grid.tilesN * p.M * p.K) +
             static_cast<double>(p.M * p.N) * (grid.split > 1 ? 2.0 * static_cast<double>(grid.split) + 1.0 : 1.0)) +
            b * static_cast<double>(p.M * p.N) * p.epilogue.bytesPerOutput();
  k.flops += b * static_cast<double>(p.M * p.N) * p.epilogue.flopsPerOutput();
  k.zeroOutputsFirst = grid.split > 1;
  k.cudaFunction = fmt::format("rk_n{}_{}", node, k.name);
  const GemmInstance g = gemmInstance(p, grid);
  useCudaLibrary(k, kGemvRTask);
  if (g.workspace) {
    useSplitKEpilogue(k, grid, b * static_cast<double>(p.M * p.N));
    k.sharedBytes = std::max<int64_t>(k.sharedBytes, 4);  // the arrival's verdict
  }
  k.cudaSource = cudaInstantiation(
      k.cudaFunction, static_cast<size_t>(p.numInputs), g.numOutputs(),
      g.call("rammer_gemv_rtask", {boolArg(kMajor), std::to_string(p.M), std::to_string(per), std::to_string(unroll),
                                   llArg(p.sAm), llArg(kMajor ? p.sBn : p.sBk), llArg(p.N), llArg(p.K),
                                   llArg(grid.kChunk), llArg(grid.tilesN), llArg(grid.split), llArg(cols)}));
  k.written = [p, grid, tile](int64_t rtask, std::vector<WrittenRun>& runs) {
    const TileGrid::Pos pos = grid.writtenBand(rtask, tile);
    if (pos.cols <= 0) return;
    for (int64_t i = 0; i < pos.rows; ++i)
      runs.push_back(WrittenRun{0, (pos.batch * p.M + pos.m0 + i) * p.N + pos.n0, pos.cols, 1});
  };
  return k;
}

}  // namespace

std::vector<RKernel> gemmKernels(const ir::Graph& graph, ir::NodeId node) {
  const ir::Node& n = graph.node(node);
  const bool fused = n.domain == ops::kRammerDomain && (n.opType == "FusedMatMul" || n.opType == "FusedGemm");
  if (!fused && !n.domain.empty() && n.domain != "ai.onnx") fail("no GEMM rKernel for domain " + n.domain);
  GemmProblem p;
  if (n.opType == "MatMul" || n.opType == "FusedMatMul") p = matmulProblem(graph, n);
  else if (n.opType == "Gemm" || n.opType == "FusedGemm") p = gemmProblem(graph, n);
  else fail("gemmKernels does not handle " + n.opType);
  p.epilogue = Epilogue::of(graph, n);
  p.numInputs = std::max(p.numInputs, static_cast<int>(n.inputs.size()));
  normaliseStrides(p);

  std::vector<RKernel> out;
  // 128 x 128 only where it has whole tiles to fill (it idles, and spills
  // in its epilogue, on skinny shapes).
  if (std::min(p.M, p.N) > 64) out.push_back(makeKernel(p, node, GemmTile{128, 128, 8, 8, 8}, 1));
  out.push_back(makeKernel(p, node, GemmTile{64, 64, 8, 4, 4}, 1));
  out.push_back(makeKernel(p, node, GemmTile{32, 32, 8, 4, 4}, 1));
  out.push_back(makeKernel(p, node, GemmTile{16, 64, 8, 4, 4}, 1));
  // Deep K over few tiles: more, shorter rTasks (chunks of >= 64).
  const GemmTile splitTile{32, 32, 8, 4, 4};
  const int64_t tiles = p.batches() * ceilDiv64(p.M, splitTile.tm) * ceilDiv64(p.N, splitTile.tn);
  if (const int64_t split = chooseSplitK(tiles, p.K, 64); split >= 2) {
    RKernel k = makeKernel(p, node, splitTile, split);
    if (k.params.at("split_k") > 1) out.push_back(std::move(k));
  }
  if (gemvApplies(p)) out.push_back(gemvKernel(p, node));
  return out;
}

}  // namespace rammer::kernels
