#include "core/kernels/tile_gemm.h"

#include <atomic>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

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

std::string tiledGemmCuda(const GemmCudaParts& p, const GemmTile& t, const TileGrid& g) {
  // Loads walk the tile in the operand's memory order (consecutive threads,
  // consecutive addresses); shared memory always holds As[k][m] and Bs[k][n]
  // so the inner product reads rows of both.
  const std::string aIndex = p.aKContiguous ? "const I m = m0 + i / TK, k = k0 + i % TK;\n"
                                              "        float* dst = As + (i % TK) * TM + i / TK;\n"
                                            : "const I m = m0 + i % TM, k = k0 + i / TM;\n"
                                              "        float* dst = As + i;\n";
  const std::string bIndex = p.bNContiguous ? "const I n = n0 + i % TN, k = k0 + i / TN;\n"
                                              "        float* dst = Bs + i;\n"
                                            : "const I n = n0 + i / TK, k = k0 + i % TK;\n"
                                              "        float* dst = Bs + (i % TK) * TN + i / TK;\n";
  return fmt::format(
      R"({sig} {{
  typedef {itype} I;
  constexpr int TM = {tm}, TN = {tn}, TK = {tk}, RM = {rm}, RN = {rn}, TX = {tx}, NT = {nt};
  constexpr I M = {M}, N = {N}, K = {K}, KCHUNK = {kchunk}, TILES_M = {tilesM}, TILES_N = {tilesN}, SPLIT = {split};
  I t = rtask_id;
  const I tn = t % TILES_N; t /= TILES_N;
  const I tm = t % TILES_M; t /= TILES_M;
  const I ks = t % SPLIT;
  const I bb = t / SPLIT;
  (void)ks; (void)bb;
{prologue}
  const I m0 = tm * TM, n0 = tn * TN, kbeg = ks * KCHUNK;
  const I kend = kbeg + KCHUNK < K ? kbeg + KCHUNK : K;
  const bool active = tid < NT;
  const int tx = tid % TX, ty = tid / TX;
  // A thread whose first row or column lies past the matrix computes nothing
  // useful (a thin GEMM's edge tile): it still loads and meets every barrier.
  const bool computes = active && m0 + ty < M && n0 + tx < N;
  float* As = smem;
  float* Bs = smem + TK * TM;
  float acc[RM][RN];
#pragma unroll
  for (int r = 0; r < RM; ++r)
#pragma unroll
    for (int c = 0; c < RN; ++c) acc[r][c] = 0.0f;
  for (I k0 = kbeg; k0 < kbeg + KCHUNK; k0 += TK) {{
    if (active) {{
      for (int i = tid; i < TK * TM; i += NT) {{
        {aIndex}        float v = 0.0f;
        if (m < M && k < kend) {{ {loadA} }}
        *dst = v;
      }}
      for (int i = tid; i < TK * TN; i += NT) {{
        {bIndex}        float v = 0.0f;
        if (n < N && k < kend) {{ {loadB} }}
        *dst = v;
      }}
    }}
    __syncthreads();
    if (computes) {{
#pragma unroll
      for (int kk = 0; kk < TK; ++kk) {{
        float a[RM], b[RN];
#pragma unroll
        for (int r = 0; r < RM; ++r) a[r] = As[kk * TM + ty + r * (TM / RM)];
#pragma unroll
        for (int c = 0; c < RN; ++c) b[c] = Bs[kk * TN + tx + c * TX];
#pragma unroll
        for (int r = 0; r < RM; ++r)
#pragma unroll
          for (int c = 0; c < RN; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
      }}
    }}
    __syncthreads();
  }}
  if (computes) {{
#pragma unroll
    for (int r = 0; r < RM; ++r)
#pragma unroll
      for (int c = 0; c < RN; ++c) {{
        const I m = m0 + ty + r * (TM / RM), n = n0 + tx + c * TX;
        if (m < M && n < N) {{
          float v = acc[r][c];
          {store}
        }}
      }}
  }}
}}
)",
      fmt::arg("sig", tileCudaSignature(p.function, p.numInputs, p.numOutputs)),
      fmt::arg("itype", p.wideIndex ? "long long" : "int"), fmt::arg("tm", t.tm), fmt::arg("tn", t.tn),
      fmt::arg("tk", t.tk), fmt::arg("rm", t.rm), fmt::arg("rn", t.rn), fmt::arg("tx", t.tx()),
      fmt::arg("nt", t.threads()), fmt::arg("M", g.M), fmt::arg("N", g.N), fmt::arg("K", g.K),
      fmt::arg("kchunk", g.kChunk), fmt::arg("tilesM", g.tilesM), fmt::arg("tilesN", g.tilesN),
      fmt::arg("split", g.split), fmt::arg("prologue", p.prologue), fmt::arg("aIndex", aIndex),
      fmt::arg("bIndex", bIndex), fmt::arg("loadA", p.loadA), fmt::arg("loadB", p.loadB),
      fmt::arg("store", p.store));
}

void atomicAddTile(float* dst, int64_t ldd, const float* src, int64_t lds, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) std::atomic_ref<float>(dst[i * ldd + j]).fetch_add(src[i * lds + j]);
}

}  // namespace rammer::kernels
