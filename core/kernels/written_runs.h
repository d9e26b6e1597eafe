#pragma once
// What one rTask writes, as runs of output elements. An rKernel that
// declares this instead of a CPU tile is emulated from its operator's
// reference implementation (issue #44 item 2): the emulator computes the
// operator once and each rTask copies its runs of the result, so the
// kernel's math is written once, in its CUDA text (which the host target
// runs), and never again per variant for the CPU.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace rammer::kernels {

// Elements first, first + stride, ..., first + (count - 1) * stride of
// output `slot`.
struct WrittenRun {
  int32_t slot = 0;
  int64_t first = 0, count = 0, stride = 1;
  friend bool operator==(const WrittenRun&, const WrittenRun&) = default;
};

// Appends rTask `rtask`'s runs to `runs`.
using WrittenFn = std::function<void(int64_t rtask, std::vector<WrittenRun>& runs)>;

// Appends element `element` of output `slot` to `runs`, extending the
// last run when the element continues it (a run of one takes the step to
// its second element as its stride).
void appendWritten(std::vector<WrittenRun>& runs, int32_t slot, int64_t element);

// Rows [rowBegin, rowEnd) of output 0, each `length` elements `inner`
// apart, row r starting at (r / inner) * length * inner + r % inner: the
// rows along an axis with `inner` elements after it (contiguous rows when
// inner is 1; single elements when length is 1).
void appendRows(std::vector<WrittenRun>& runs, int64_t rowBegin, int64_t rowEnd, int64_t length, int64_t inner = 1);

// rTask k writes rows [k * perRTask, min(rows, (k + 1) * perRTask)) of
// output 0 (appendRows).
WrittenFn rowsPerRTask(int64_t perRTask, int64_t rows, int64_t length, int64_t inner = 1);

// Copies `runs` from `from` (per output slot, the operator's full result
// in words) to `to` (per output slot; null where omitted: skipped). Throws
// std::out_of_range naming the run when one reaches past either side.
void copyWrittenRuns(std::span<const WrittenRun> runs, std::span<const std::span<const float>> from,
                     std::span<float* const> to, std::span<const int64_t> toNumel);

}  // namespace rammer::kernels
