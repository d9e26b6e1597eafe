// The arena of the buffers launches clear (core/codegen/zero_ranges.h):
// what one launch clears merges into as few memsets as the layout allows.
#include "core/codegen/zero_ranges.h"

#include <gtest/gtest.h>

namespace rammer::codegen {
namespace {


BufferInfo buffer(int64_t numel, int32_t storage = -1) {
  BufferInfo b;
  b.numel = numel;
  b.storage = storage;
  return b;
}

KernelLaunch clearing(std::vector<int32_t> zero) {
  KernelLaunch l;
  l.zeroBuffers = std::move(zero);
  return l;
}

TEST(ZeroRanges, AThousandSplitKOutputsOfOnePersistentLaunchAreOneMemset) {
  // lstm_tc's wavefront plan: one launch clears 1,000 buffers (odd sizes too).
  std::vector<BufferInfo> buffers;
  std::vector<int32_t> zero;
  buffers.push_back(buffer(4096));  // a weight: not cleared, not in the arena
  for (int i = 0; i < 1000; ++i) {
    zero.push_back(static_cast<int32_t>(buffers.size()));
    buffers.push_back(buffer(i % 3 == 0 ? 1024 : 1000 + i));
  }
  auto z = layOutZeroedBuffers(buffers, {clearing({}), clearing(zero)});
  ASSERT_TRUE(z.ok()) << z.errorText();
  EXPECT_EQ(z->arenaOffset[0], -1);
  EXPECT_EQ(z->arenaOffset[1], 0);
  for (size_t i = 1; i < buffers.size(); ++i) {
    EXPECT_EQ(z->arenaOffset[i] % ZeroLayout::kAlignWords, 0) << i;
    if (i > 1) {
      EXPECT_GE(z->arenaOffset[i], z->arenaOffset[i - 1] + buffers[i - 1].numel) << "overlap at " << i;
    }
  }
  EXPECT_TRUE(z->clears[0].empty());
  ASSERT_EQ(z->clears[1].size(), 1u);
  EXPECT_EQ(z->clears[1][0].offset, 0);
  EXPECT_EQ(z->clears[1][0].offset + z->clears[1][0].words, z->arenaOffset.back() + buffers.back().numel);
  EXPECT_LE(z->arenaWords, z->clears[1][0].words + ZeroLayout::kAlignWords);
}

TEST(ZeroRanges, EachRammerBaseLaunchClearsItsOwnOutputOnly) {
  const std::vector<BufferInfo> buffers = {buffer(100), buffer(200), buffer(300)};
  auto z = layOutZeroedBuffers(buffers, {clearing({0}), clearing({2}), clearing({1})});
  ASSERT_TRUE(z.ok()) << z.errorText();
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(z->clears[i].size(), 1u);
    EXPECT_EQ(z->clears[i][0].words, buffers[i == 0 ? 0 : (i == 1 ? 2 : 1)].numel);
  }
  EXPECT_EQ(z->clears[1][0].offset, z->arenaOffset[2]);
}

TEST(ZeroRanges, GapsViewsAndRepeatsStayExact) {
  // 0, 1, 2 in the arena; launch 0 clears 0 and 2 (not 1, between them), a
  // view of 0 that covers part of it, and 2 twice.
  const std::vector<BufferInfo> buffers = {buffer(128), buffer(64), buffer(70), buffer(32, 0), buffer(8)};
  auto z = layOutZeroedBuffers(buffers, {clearing({2, 3, 0, 2}), clearing({1, 3})});
  ASSERT_TRUE(z.ok()) << z.errorText();
  EXPECT_EQ(z->arenaOffset[4], -1);
  EXPECT_EQ(z->arenaOffset[3], -1) << "a view has no place of its own";
  ASSERT_EQ(z->clears[0].size(), 2u) << "buffer 1 lies between 0 and 2 and is not this launch's to clear";
  EXPECT_EQ(z->clears[0][0].offset, z->arenaOffset[0]);
  EXPECT_EQ(z->clears[0][0].words, 128) << "the whole storage, not only its view";
  EXPECT_EQ(z->clears[0][1].offset, z->arenaOffset[2]);
  EXPECT_EQ(z->clears[0][1].words, 70);
  // Launch 1: the view's 32 words at its storage, then buffer 1: a part of
  // a storage never merges over the rest of that storage.
  ASSERT_EQ(z->clears[1].size(), 2u);
  EXPECT_EQ(z->clears[1][0].offset, z->arenaOffset[0]);
  EXPECT_EQ(z->clears[1][0].words, 32);
  EXPECT_EQ(z->clears[1][1].offset, z->arenaOffset[1]);
  EXPECT_EQ(z->clears[1][1].words, 64);
}

TEST(ZeroRanges, ABufferClearedTwiceAfterAMergeAddsNoRange) {
  // 0 and 1 adjacent and whole; 1 named twice, once through its view 2.
  const std::vector<BufferInfo> buffers = {buffer(100), buffer(50), buffer(50, 1)};
  auto z = layOutZeroedBuffers(buffers, {clearing({1, 0, 1, 2})});
  ASSERT_TRUE(z.ok()) << z.errorText();
  ASSERT_EQ(z->clears[0].size(), 1u);
  EXPECT_EQ(z->clears[0][0].offset, 0);
  EXPECT_EQ(z->clears[0][0].words, z->arenaOffset[1] + 50);
}

TEST(ZeroRanges, ALaunchClearingABufferThatDoesNotExistIsAnError) {
  auto z = layOutZeroedBuffers({buffer(4)}, {clearing({0}), clearing({3})});
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.errorText(), "launch 1 zeroes buffer 3, which does not exist");
}

// A split-K output placed in a Concat's buffer (kernels/in_place.h)
// clears its own part of that storage, not the parts other launches wrote.
TEST(ZeroRanges, AnOutputPlacedInAConcatClearsOnlyItsPart) {
  std::vector<BufferInfo> buffers = {buffer(100, 0), buffer(30, 0), buffer(70, 0)};
  buffers[1].storageOffset = 0;
  buffers[2].storageOffset = 30;
  auto z = layOutZeroedBuffers(buffers, {clearing({1}), clearing({2})});
  ASSERT_TRUE(z.ok()) << z.errorText();
  EXPECT_EQ(z->arenaOffset[0], 0);
  ASSERT_EQ(z->clears[0].size(), 1u);
  EXPECT_EQ(z->clears[0][0].offset, 0);
  EXPECT_EQ(z->clears[0][0].words, 30);
  ASSERT_EQ(z->clears[1].size(), 1u);
  EXPECT_EQ(z->clears[1][0].offset, 30);
  EXPECT_EQ(z->clears[1][0].words, 70);
}

}  // namespace
}  // namespace rammer::codegen
