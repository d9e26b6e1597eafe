// The mainloop's shared-memory index formulas (core/kernels/cuda/
// gemm_mainloop.cuh, compiled here through the host prelude as the host
// target compiles it), evaluated over the lanes of every warp: the operand
// stores and the 16-byte fragment loads of every tile the library offers
// are free of bank conflicts (issue #27 item 7), and the generator's shared
// memory size is the mainloop's.
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

template <int TM, int TN, int TK, int RM, int RN, bool AK, bool BK>
void checkTile() {
  using T = RammerGemmTile<TM, TN, TK, RM, RN, AK, BK>;
  using MA = typename T::MapA;
  using MB = typename T::MapB;
  using F = typename T::Frag;
  SCOPED_TRACE(::testing::Message() << TM << "x" << TN << " A " << (AK ? "K" : "MN") << "-major, B "
                                    << (BK ? "K" : "MN") << "-major");
  for (int warp = 0; warp * kWarp < T::NT; ++warp) {
    // Stores: element i of every lane.
    for (int i = 0; i < MA::L; ++i) {
      std::vector<int> a;
      for (int l = 0; l < kWarp; ++l) a.push_back(MA::store(warp * kWarp + l, i));
      EXPECT_EQ(conflicts(a, 1), 0) << "A store, warp " << warp << ", element " << i;
    }
    for (int i = 0; i < MB::L; ++i) {
      std::vector<int> b;
      for (int l = 0; l < kWarp; ++l) b.push_back(T::A_WORDS + MB::store(warp * kWarp + l, i));
      EXPECT_EQ(conflicts(b, 1), 0) << "B store, warp " << warp << ", element " << i;
    }
    // Fragment loads at every k of the step.
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
  // Every element of both tiles has one owner.
  std::set<int> seen;
  for (int t = 0; t < T::NT; ++t) {
    for (int i = 0; i < MA::L; ++i) EXPECT_TRUE(seen.insert(MA::store(t, i)).second);
    for (int i = 0; i < MB::L; ++i) EXPECT_TRUE(seen.insert(T::A_WORDS + MB::store(t, i)).second);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(TK * (TM + TN)));
  // The generator sizes the vEU's shared memory as the mainloop lays it out.
  EXPECT_EQ(GemmTile({TM, TN, TK, RM, RN}).sharedBytes(AK, BK), 4 * T::SHARED_WORDS);
}

template <int TM, int TN, int RM, int RN>
void checkAllLayouts() {
  checkTile<TM, TN, 8, RM, RN, true, false>();
  checkTile<TM, TN, 8, RM, RN, true, true>();
  checkTile<TM, TN, 8, RM, RN, false, false>();
  checkTile<TM, TN, 8, RM, RN, false, true>();
}

TEST(MainloopBanks, EveryOfferedTileIsConflictFree) {
  checkAllLayouts<128, 128, 8, 8>();
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
