// The mainloop's shared-memory index formulas (core/kernels/cuda/
// gemm_mainloop.cuh, compiled here through the host prelude as the host
// target compiles it), evaluated over the lanes of every warp: the operand
// stores (4-byte from registers, 16-byte by cp.async) and the 16-byte
// fragment loads of every tile the library offers are free of bank
// conflicts (issue #27 item 7), and the generator's shared memory size is
// the mainloop's.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/kernels/tile_gemm.h"
// clang-format off
#include "core/codegen/host/rammer_host.h"
#include "core/kernels/cuda/gemm_mainloop.cuh"
// clang-format on

namespace rammer::kernels {
namespace {

constexpr int kBanks = 32, kWarp = 32;

// Extra cycles of one shared access: for each bank, the distinct 4-byte
// words the lanes touch there, less one. A 16-byte access (words = 4)
// is served a quarter-warp (8 lanes) at a time.
int conflicts(const std::vector<int>& firstWord, int words) {
  const int group = words == 4 ? 8 : kWarp;
  int extra = 0;
  for (size_t g = 0; g < firstWord.size(); g += group) {
    std::map<int, std::set<int>> bank;
    for (size_t l = g; l < std::min(firstWord.size(), g + group); ++l)
      for (int w = 0; w < words; ++w) bank[(firstWord[l] + w) % kBanks].insert(firstWord[l] + w);
    for (const auto& [b, distinct] : bank) extra += static_cast<int>(distinct.size()) - 1;
  }
  return extra;
}

OperandLayout layoutOf(int l) {
  return l == RAMMER_K_MAJOR ? OperandLayout::KMajor
                             : (l == RAMMER_MN_ASYNC ? OperandLayout::MNAsync : OperandLayout::MNMajor);
}
const char* nameOf(int l) { return l == RAMMER_K_MAJOR ? "K-major" : (l == RAMMER_MN_ASYNC ? "cp.async" : "MN-major"); }

// The words one operand's stores write, per warp and store instruction,
// checked for conflicts; every word of the operand's tile is written once.
template <class M, int LAYOUT, int NT, int TK>
void checkStores(const char* which, int base, std::set<int>& seen) {
  if (LAYOUT == RAMMER_MN_ASYNC) {
    for (int warp = 0; warp * kWarp < NT; ++warp)
      for (int j = 0; j < M::CHUNKS_PER_THREAD; ++j) {
        std::vector<int> words;
        for (int l = 0; l < kWarp; ++l)
          if (M::chunkK(warp * kWarp + l, j) < TK) words.push_back(base + M::chunkStore(warp * kWarp + l, j));
        EXPECT_EQ(conflicts(words, 4), 0) << which << " cp.async, warp " << warp << ", chunk " << j;
        EXPECT_EQ(words.size() % 8, 0u) << which << ": quarter-warps of whole chunks";
      }
    for (int t = 0; t < NT; ++t)
      for (int j = 0; j < M::CHUNKS_PER_THREAD; ++j)
        if (M::chunkK(t, j) < TK) {
          EXPECT_EQ(M::chunkStore(t, j) % 4, 0) << which << ": a 16-byte chunk must be aligned";
          for (int w = 0; w < 4; ++w) EXPECT_TRUE(seen.insert(base + M::chunkStore(t, j) + w).second);
        }
    return;
  }
  for (int warp = 0; warp * kWarp < NT; ++warp)
    for (int i = 0; i < M::L; ++i) {
      std::vector<int> words;
      for (int l = 0; l < kWarp; ++l) words.push_back(base + M::store(warp * kWarp + l, i));
      EXPECT_EQ(conflicts(words, 1), 0) << which << " store, warp " << warp << ", element " << i;
    }
  for (int t = 0; t < NT; ++t)
    for (int i = 0; i < M::L; ++i) EXPECT_TRUE(seen.insert(base + M::store(t, i)).second);
}

template <int TM, int TN, int TK, int RM, int RN, int AL, int BL>
void checkTile() {
  using T = RammerGemmTile<TM, TN, TK, RM, RN, AL, BL>;
  using MA = typename T::MapA;
  using MB = typename T::MapB;
  using F = typename T::Frag;
  SCOPED_TRACE(::testing::Message() << TM << "x" << TN << " A " << nameOf(AL) << ", B " << nameOf(BL));
  std::set<int> seen;
  checkStores<MA, AL, T::NT, TK>("A", 0, seen);
  checkStores<MB, BL, T::NT, TK>("B", T::A_WORDS, seen);
  EXPECT_EQ(seen.size(), static_cast<size_t>(TK * (TM + TN)));
  // Fragment loads at every k of the step.
  for (int warp = 0; warp * kWarp < T::NT; ++warp) {
    for (int kk = 0; kk < TK; ++kk) {
      for (int f = 0; f < F::FM; ++f) {
        std::vector<int> a;
        for (int l = 0; l < kWarp; ++l) a.push_back(kk * MA::LD + F::row((warp * kWarp + l) / F::TX, f));
        EXPECT_EQ(conflicts(a, 4), 0) << "A fragment " << f << ", warp " << warp << ", k " << kk;
      }
      for (int f = 0; f < F::FN; ++f) {
        std::vector<int> b;
        for (int l = 0; l < kWarp; ++l) b.push_back(T::A_WORDS + kk * MB::LD + F::col((warp * kWarp + l) % F::TX, f));
        EXPECT_EQ(conflicts(b, 4), 0) << "B fragment " << f << ", warp " << warp << ", k " << kk;
      }
    }
  }
  // The generator sizes the vEU's shared memory as the mainloop lays it out.
  EXPECT_EQ(GemmTile({TM, TN, TK, RM, RN}).sharedBytes(layoutOf(AL), layoutOf(BL)), 4 * T::SHARED_WORDS);
}

// Whether the mainloop has a cp.async map for an operand of `rows` tile rows.
constexpr bool asyncFits(int rows, int threads) { return rows % 32 == 0 && threads % (rows / 4) == 0; }

template <int TM, int TN, int RM, int RN>
void checkAllLayouts() {
  constexpr int K = RAMMER_K_MAJOR, MN = RAMMER_MN_MAJOR, AS = RAMMER_MN_ASYNC;
  constexpr int NT = (TM / RM) * (TN / RN);
  checkTile<TM, TN, 8, RM, RN, K, MN>();
  checkTile<TM, TN, 8, RM, RN, K, K>();
  checkTile<TM, TN, 8, RM, RN, MN, MN>();
  checkTile<TM, TN, 8, RM, RN, MN, K>();
  if constexpr (asyncFits(TN, NT)) checkTile<TM, TN, 8, RM, RN, K, AS>();
  if constexpr (asyncFits(TM, NT)) checkTile<TM, TN, 8, RM, RN, AS, K>();
  if constexpr (asyncFits(TM, NT) && asyncFits(TN, NT)) checkTile<TM, TN, 8, RM, RN, AS, AS>();
  // The generator offers cp.async exactly where the mainloop has a map.
  const GemmTile tile{TM, TN, 8, RM, RN};
  EXPECT_EQ(tile.mnLayout(TM, true) == OperandLayout::MNAsync, asyncFits(TM, NT));
  EXPECT_EQ(tile.mnLayout(TN, true) == OperandLayout::MNAsync, asyncFits(TN, NT));
  EXPECT_EQ(tile.mnLayout(TN, false), OperandLayout::MNMajor);
}

TEST(MainloopBanks, EveryOfferedTileIsConflictFree) {
  checkAllLayouts<128, 128, 8, 8>();
  checkAllLayouts<128, 64, 8, 4>();
  checkAllLayouts<64, 64, 4, 4>();
  checkAllLayouts<32, 32, 4, 4>();
  checkAllLayouts<16, 64, 4, 4>();
}

TEST(MainloopBanks, TheCountFindsAConflictItShould) {
  // Unpadded transposed stores of a K-major tile (the old mainloop's
  // `(i % TK) * TM + i / TK`): eight lanes share a bank.
  std::vector<int> words;
  for (int l = 0; l < kWarp; ++l) words.push_back((l % 8) * 128 + l / 8);
  EXPECT_EQ(conflicts(words, 1), 4 * 7);
}

}  // namespace
}  // namespace rammer::kernels
