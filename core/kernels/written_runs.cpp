#include "core/kernels/written_runs.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rammer::kernels {

void appendWritten(std::vector<WrittenRun>& runs, int32_t slot, int64_t element) {
  if (!runs.empty() && runs.back().slot == slot) {
    WrittenRun& r = runs.back();
    if (r.count == 1 && element > r.first) {
      r.stride = element - r.first;
      r.count = 2;
      return;
    }
    if (element == r.first + r.count * r.stride) {
      ++r.count;
      return;
    }
  }
  runs.push_back(WrittenRun{slot, element, 1, 1});
}

void appendRows(std::vector<WrittenRun>& runs, int64_t rowBegin, int64_t rowEnd, int64_t length, int64_t inner) {
  if (rowBegin >= rowEnd || length <= 0) return;
  if (inner == 1) {
    runs.push_back(WrittenRun{0, rowBegin * length, (rowEnd - rowBegin) * length, 1});
    return;
  }
  for (int64_t r = rowBegin; r < rowEnd; ++r)
    runs.push_back(WrittenRun{0, (r / inner) * length * inner + r % inner, length, inner});
}

WrittenFn rowsPerRTask(int64_t perRTask, int64_t rows, int64_t length, int64_t inner) {
  return [=](int64_t rtask, std::vector<WrittenRun>& runs) {
    appendRows(runs, rtask * perRTask, std::min(rows, (rtask + 1) * perRTask), length, inner);
  };
}

void copyWrittenRuns(std::span<const WrittenRun> runs, std::span<const std::span<const float>> from,
                     std::span<float* const> to, std::span<const int64_t> toNumel) {
  for (const WrittenRun& r : runs) {
    if (r.count <= 0) continue;
    const size_t slot = static_cast<size_t>(r.slot);
    const int64_t last = r.first + (r.count - 1) * r.stride;
    if (r.slot >= 0 && slot < to.size() && !to[slot]) continue;  // an omitted output
    if (r.slot < 0 || slot >= to.size() || slot >= from.size() || slot >= toNumel.size() || r.first < 0 ||
        r.stride < 0 || last >= static_cast<int64_t>(from[slot].size()) || last >= toNumel[slot])
      throw std::out_of_range("writes elements " + std::to_string(r.first) + ".." + std::to_string(last) +
                              " (stride " + std::to_string(r.stride) + ") of output " + std::to_string(r.slot) +
                              ", outside the operator's result");
    float* dst = to[slot];
    const float* src = from[slot].data();
    if (r.stride == 1) {
      std::copy_n(src + r.first, r.count, dst + r.first);
    } else {
      for (int64_t i = 0, e = r.first; i < r.count; ++i, e += r.stride) dst[e] = src[e];
    }
  }
}

}  // namespace rammer::kernels
