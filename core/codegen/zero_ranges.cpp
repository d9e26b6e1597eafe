#include "core/codegen/zero_ranges.h"

#include <fmt/core.h>

#include <algorithm>

namespace rammer::codegen {

namespace {

int64_t alignUp(int64_t words) {
  return (words + ZeroLayout::kAlignWords - 1) / ZeroLayout::kAlignWords * ZeroLayout::kAlignWords;
}

}  // namespace

ir::Result<ZeroLayout> layOutZeroedBuffers(const std::vector<codegen::BufferInfo>& buffers,
                                           const std::vector<codegen::KernelLaunch>& launches) {
  auto storageOf = [&](size_t i) -> size_t {
    const int32_t st = buffers[i].storage;
    return st < 0 || static_cast<size_t>(st) >= buffers.size() ? i : static_cast<size_t>(st);
  };
  ZeroLayout out;
  out.arenaOffset.assign(buffers.size(), -1);
  std::vector<bool> cleared(buffers.size(), false);
  for (size_t i = 0; i < launches.size(); ++i)
    for (int32_t z : launches[i].zeroBuffers) {
      if (z < 0 || static_cast<size_t>(z) >= buffers.size())
        return ir::makeError(fmt::format("launch {} zeroes buffer {}, which does not exist", i, z));
      cleared[storageOf(static_cast<size_t>(z))] = true;
    }
  for (size_t i = 0; i < buffers.size(); ++i)
    if (cleared[i]) {
      out.arenaOffset[i] = out.arenaWords;
      out.arenaWords += alignUp(std::max<int64_t>(buffers[i].numel, 1));
    }

  out.clears.resize(launches.size());
  for (size_t i = 0; i < launches.size(); ++i) {
    struct Clear {
      WordRange range;
      bool wholeStorage = false;
    };
    std::vector<Clear> clears;
    for (int32_t z : launches[i].zeroBuffers) {
      const size_t st = storageOf(static_cast<size_t>(z));
      const BufferInfo& b = buffers[static_cast<size_t>(z)];
      const int64_t words = std::max<int64_t>(b.numel, 0);
      // A Concat's input placed in its output: only its own part.
      if (words > 0)
        clears.push_back({{out.arenaOffset[st] + b.storageOffset, words}, b.storageOffset == 0 && words >= buffers[st].numel});
    }
    std::sort(clears.begin(), clears.end(), [](const Clear& a, const Clear& b) {
      return a.range.offset != b.range.offset ? a.range.offset < b.range.offset : a.range.words > b.range.words;
    });
    std::vector<WordRange>& merged = out.clears[i];
    bool lastWhole = false;
    for (const Clear& c : clears) {
      if (!merged.empty()) {
        const int64_t end = merged.back().offset + merged.back().words;
        if (c.range.offset + c.range.words <= end) continue;  // the same storage again, or a view of it
        // Past a whole storage comes only its alignment padding, no one's data.
        if (lastWhole && alignUp(end) == c.range.offset) {
          merged.back().words = c.range.offset + c.range.words - merged.back().offset;
          lastWhole = c.wholeStorage;
          continue;
        }
      }
      merged.push_back(c.range);
      lastWhole = c.wholeStorage;
    }
  }
  return out;
}

}  // namespace rammer::codegen
