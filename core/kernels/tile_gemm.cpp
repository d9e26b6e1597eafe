#include "core/kernels/tile_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/kernels/cuda_library.h"
#include "core/kernels/kernel_source.h"

namespace rammer::kernels {

TileGrid::Pos TileGrid::locate(int64_t rtask, const GemmTile& t) const {
  Pos p;
  int64_t r = rtask;
  const int64_t tn = r % tilesN;
  r /= tilesN;
  const int64_t tm = r % tilesM;
  r /= tilesM;
  p.split = r % split;
  p.batch = r / split;
  p.m0 = tm * t.tm;
  p.n0 = tn * t.tn;
  p.rows = std::min<int64_t>(t.tm, M - p.m0);
  p.cols = std::min<int64_t>(t.tn, N - p.n0);
  p.k0 = std::min(K, p.split * kChunk);
  p.kLen = std::min(K, p.k0 + kChunk) - p.k0;
  return p;
}

TileGrid::Pos TileGrid::writtenBand(int64_t rtask, const GemmTile& t) const {
  Pos p = locate(rtask, t);
  if (split == 1) return p;
  const int64_t band = ceilDiv64(p.rows, split), first = std::min(p.rows, p.split * band);
  p.m0 += first;
  p.rows = std::min(p.rows, first + band) - first;
  return p;
}

TileGrid makeTileGrid(int64_t batches, int64_t M, int64_t N, int64_t K, const GemmTile& tile, int64_t split) {
  TileGrid g;
  g.batches = batches;
  g.M = M;
  g.N = N;
  g.K = K;
  g.tilesM = ceilDiv64(M, tile.tm);
  g.tilesN = ceilDiv64(N, tile.tn);
  if (split < 1) split = 1;
  // Chunks are whole K-steps; recount them so that none is empty.
  g.kChunk = ceilDiv64(ceilDiv64(K, split), tile.tk) * tile.tk;
  g.split = g.kChunk > 0 ? std::max<int64_t>(1, ceilDiv64(K, g.kChunk)) : 1;
  return g;
}

double tiledGemmBytes(const TileGrid& g, const GemmTile& t, double epilogueReadsPerOutput) {
  const double M = static_cast<double>(g.M), N = static_cast<double>(g.N), K = static_cast<double>(g.K);
  const double perBatch = static_cast<double>(g.tilesN) * M * K    // A rows, once per tile column
                          + static_cast<double>(g.tilesM) * K * N  // B columns, once per tile row
                          + M * N * epilogueReadsPerOutput;
  const double writes = g.split > 1 ? M * N * (2.0 * static_cast<double>(g.split) + 1.0) : M * N;
  return 4.0 * static_cast<double>(g.batches) * (perBatch + writes);
}

std::string tileCudaSignature(const std::string& function, int numInputs, int numOutputs) {
  std::string s = "__device__ void " + function + "(int rtask_id, int tid, float* smem";
  for (int i = 0; i < numInputs; ++i) s += fmt::format(", const float* in{}", i);
  for (int i = 0; i < numOutputs; ++i) s += fmt::format(", float* out{}", i);
  return s + ")";
}

std::string tileCudaFloat(float v) {
  if (!std::isfinite(v)) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return fmt::format("__int_as_float(0x{:08x})", bits);
  }
  std::string s = fmt::format("{:.9g}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string stridedOperand(char which, const std::string& name, const std::string& base, const std::string& rows,
                           int64_t smn, int64_t sk) {
  return fmt::format("RammerStridedOperand<I, T::Map{}::L, TK, {}LL, {}LL> {}({}, {}, klen);", which, smn, sk, name, base,
                     rows);
}

int64_t chooseSplitK(int64_t tiles, int64_t K, int64_t minChunk, int64_t target) {
  const int64_t maxSplit = std::min<int64_t>(16, K / std::max<int64_t>(minChunk, 1));
  if (maxSplit < 2) return 0;
  return std::clamp<int64_t>(ceilDiv64(target, std::max<int64_t>(tiles, 1)), 2, maxSplit);
}

namespace {

// The last split-K chunk of a tile applies the epilogue (MainloopParts::finish).
std::string finishCuda(const MainloopParts& p, const std::string& locate) {
  return fmt::format(R"(
  auto finish = [=](int mi, int ni) {{
    {locate}
{storeSetup}
    const I m = m0 + mi, n = n0 + ni;
    if (m >= M || n >= N) return;
    {finish}
  }};
  rammer_splitk_epilogue<TM, TN, T::NT>(tid, smem, out{ws} + (bb * TILES_M + tm) * TILES_N + tn, SPLIT, finish);)",
                     fmt::arg("locate", locate), fmt::arg("storeSetup", p.storeSetup), fmt::arg("finish", p.finish),
                     fmt::arg("ws", p.numOutputs - 1));
}

const char* layoutName(OperandLayout l) {
  switch (l) {
    case OperandLayout::KMajor: return "RAMMER_K_MAJOR";
    case OperandLayout::MNMajor: return "RAMMER_MN_MAJOR";
    case OperandLayout::MNAsync: return "RAMMER_MN_ASYNC";
  }
  return "RAMMER_MN_MAJOR";
}

}  // namespace

std::string mainloopCuda(const MainloopParts& p, const GemmTile& t, const TileGrid& g) {
  // The rTask's place, computed at the start and again in the store (the
  // mainloop keeps no registers for it across the K loop).
  const std::string locate = R"(I t = rtask_id;
  const I tn = t % TILES_N; t /= TILES_N;
  const I tm = t % TILES_M; t /= TILES_M;
  const I ks = t % SPLIT;
  const I bb = t / SPLIT;
  const I m0 = tm * TM, n0 = tn * TN, kbeg = ks * KCHUNK;
  const I klen = K - kbeg < KCHUNK ? K - kbeg : KCHUNK;
  (void)bb; (void)m0; (void)n0; (void)kbeg; (void)klen;)";
  return fmt::format(
      R"({decl}{sig} {{
  typedef {itype} I;
  constexpr int TM = {tm}, TN = {tn}, TK = {tk}, RM = {rm}, RN = {rn};
  using T = RammerGemmTile<TM, TN, TK, RM, RN, {ak}, {bk}>;
  constexpr I M = {M}, N = {N}, K = {K}, KCHUNK = {kchunk}, TILES_M = {tilesM}, TILES_N = {tilesN}, SPLIT = {split};
  {locate}
{prologue}
  {opA}
  {opB}
  auto store = [=](int mi, int ni, float v) {{
    {locate}
{storeSetup}
    const I m = m0 + mi, n = n0 + ni;
    if (m >= M || n >= N) return;
    {store}
  }};
  rammer_gemm_mainloop<TM, TN, TK, RM, RN, {ak}, {bk}>(tid, smem, KCHUNK / TK, a, b, store);{finish}
}}
)",
      fmt::arg("decl", p.declarations), fmt::arg("sig", tileCudaSignature(p.function, p.numInputs, p.numOutputs)),
      fmt::arg("itype", p.wideIndex ? "long long" : "int"), fmt::arg("tm", t.tm), fmt::arg("tn", t.tn),
      fmt::arg("tk", t.tk), fmt::arg("rm", t.rm), fmt::arg("rn", t.rn), fmt::arg("ak", layoutName(p.layoutA)),
      fmt::arg("bk", layoutName(p.layoutB)), fmt::arg("M", g.M), fmt::arg("N", g.N), fmt::arg("K", g.K),
      fmt::arg("kchunk", g.kChunk), fmt::arg("tilesM", g.tilesM), fmt::arg("tilesN", g.tilesN),
      fmt::arg("split", g.split), fmt::arg("locate", locate), fmt::arg("prologue", p.prologue), fmt::arg("storeSetup", p.storeSetup),
      fmt::arg("opA", p.operandA), fmt::arg("opB", p.operandB), fmt::arg("store", p.store),
      fmt::arg("finish", p.finish.empty() ? std::string() : finishCuda(p, locate)));
}

void useSplitKEpilogue(RKernel& k, const TileGrid& g, double outputs) {
  useCudaLibrary(k, kSplitK);
  k.workspaceWords = g.numTiles();
  k.syncCount += 3;
  k.bytes += 8.0 * outputs;
}

}  // namespace rammer::kernels
