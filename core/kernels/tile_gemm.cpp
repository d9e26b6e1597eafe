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

int64_t chooseSplitK(int64_t tiles, int64_t K, int64_t minChunk, int64_t target) {
  const int64_t maxSplit = std::min<int64_t>(16, K / std::max<int64_t>(minChunk, 1));
  if (maxSplit < 2) return 0;
  return std::clamp<int64_t>(ceilDiv64(target, std::max<int64_t>(tiles, 1)), 2, maxSplit);
}

namespace {

const char* layoutName(OperandLayout l) {
  switch (l) {
    case OperandLayout::KMajor: return "RAMMER_K_MAJOR";
    case OperandLayout::MNMajor: return "RAMMER_MN_MAJOR";
    case OperandLayout::MNAsync: return "RAMMER_MN_ASYNC";
  }
  return "RAMMER_MN_MAJOR";
}

}  // namespace

std::string tileArg(const GemmTile& t, OperandLayout a, OperandLayout b) {
  return fmt::format("RammerGemmTile<{}, {}, {}, {}, {}, {}, {}>", t.tm, t.tn, t.tk, t.rm, t.rn, layoutName(a),
                     layoutName(b));
}

std::string gridArg(const TileGrid& g) {
  return "RammerTileGrid<" + llArg(g.M) + ", " + llArg(g.N) + ", " + llArg(g.K) + ", " + llArg(g.kChunk) + ", " +
         llArg(g.tilesM) + ", " + llArg(g.tilesN) + ", " + llArg(g.split) + ">";
}

std::string GemmInstance::problem() const {
  return "RammerGemmProblem<" + batch + ", " + output + ", " + alpha + ", " + bias + ", " + epilogue + ">";
}

TemplateCall GemmInstance::call(const std::string& name, std::vector<std::string> head) const {
  TemplateCall c;
  c.name = name;
  c.templateArgs = {indexType()};
  c.templateArgs.insert(c.templateArgs.end(), head.begin(), head.end());
  c.templateArgs.push_back(problem());
  c.templateArgs.insert(c.templateArgs.end(), reads.begin(), reads.end());
  c.args = {"rtask_id", "tid", "smem", a, b, this->c, "out0", workspace ? "out1" : "nullptr"};
  c.args.insert(c.args.end(), extras.begin(), extras.end());
  c.locals = locals;
  c.restrictPointers = false;
  return c;
}

void useSplitKEpilogue(RKernel& k, const TileGrid& g, double outputs) {
  useCudaLibrary(k, kSplitK);
  k.workspaceWords = g.numTiles();
  k.syncCount += 3;
  k.bytes += 8.0 * outputs;
}

}  // namespace rammer::kernels
