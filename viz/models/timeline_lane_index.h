#pragma once
// Per-lane index of timeline intervals (rTasks, or barrier waits) built for
// the three questions a timeline asks while painting and hovering:
//   which intervals of lane L overlap [t0, t1)?  (binary search, O(log n))
//   what to draw in pixel columns [x0, x1)?      (at most one mark a column)
//   which interval is under the mouse?           (binary search)
// Intervals of a lane are sorted by start. A vEU runs one instruction at a
// time, so ends are sorted too in real traces; a running maximum of the ends
// keeps the searches correct even when a malformed trace overlaps.
// No Qt: the painter, the tests and the benchmark use it directly.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rammer::viz {

// One interval to index. `source` is the caller's id for it (an index into
// sim::Trace::tasks or ::barriers); `op` is what colours it.
struct LaneInterval {
  double startUs = 0;
  double endUs = 0;
  int32_t lane = 0;
  int32_t op = -1;
  int32_t source = -1;
};

// The pixel mapping of one level-of-detail query: pixel column c covers
// [originUs + c*usPerPx, originUs + (c+1)*usPerPx).
struct LodQuery {
  double originUs = 0;
  double usPerPx = 1;
  int x0 = 0;  // first column to fill
  int x1 = 0;  // one past the last column
  // A column holding more intervals than this becomes one "dense" mark
  // without looking at each interval (keeps a query O(columns log n)).
  int denseThreshold = 8;
};

// What to draw: columns [x0, x1), coloured by `op`. Marks of one query are
// sorted and disjoint, so there is at most one per pixel column.
struct TimelineMark {
  int32_t x0 = 0;
  int32_t x1 = 0;
  int32_t op = -1;
  int32_t source = -1;  // the interval it stands for (dense: the one at the column's middle)
  int32_t count = 0;    // intervals in the mark's first column (dense: at least denseThreshold+1)
  bool dense = false;
};

class TimelineLaneIndex {
 public:
  TimelineLaneIndex() = default;
  // Intervals whose lane is outside [0, numLanes) or whose times are not
  // finite are dropped; an interval with end < start is treated as zero
  // length.
  TimelineLaneIndex(int numLanes, std::vector<LaneInterval> intervals);

  int numLanes() const { return static_cast<int>(laneBegin_.empty() ? 0 : laneBegin_.size() - 1); }
  size_t size() const { return start_.size(); }
  size_t laneSize(int lane) const;

  // Positions [begin, end) (global, see start()/end()) of lane `lane`.
  std::pair<size_t, size_t> laneRange(int lane) const;
  // Positions of the lane's intervals that may overlap [t0, t1): every
  // overlapping one is inside, and with non-overlapping lanes nothing else.
  std::pair<size_t, size_t> overlapping(int lane, double t0, double t1) const;

  double start(size_t pos) const { return start_[pos]; }
  double end(size_t pos) const { return end_[pos]; }
  int32_t op(size_t pos) const { return op_[pos]; }
  int32_t source(size_t pos) const { return source_[pos]; }

  // Level of detail: appends the marks for `lane` in columns [q.x0, q.x1).
  // Every column some interval overlaps gets exactly one mark; idle columns
  // get none. A sparse column's op is the one covering most of it; a run of
  // columns inside one interval is a single mark.
  void marks(int lane, const LodQuery& q, std::vector<TimelineMark>& out) const;

  // The interval containing t on `lane` (its source), else the nearest one
  // within `toleranceUs`, else -1.
  int32_t hit(int lane, double tUs, double toleranceUs = 0) const;

  // First position in [from, laneEnd) whose interval may end after t.
  size_t firstEndingAfter(size_t from, size_t laneEnd, double tUs) const;

 private:
  // firstEndingAfter, trying the next few positions first.
  size_t advance(size_t from, size_t laneEnd, double tUs) const;

  std::vector<size_t> laneBegin_;  // numLanes + 1 offsets
  std::vector<double> start_;
  std::vector<double> end_;
  std::vector<double> maxEnd_;  // running max of end_ within the lane
  std::vector<int32_t> op_;
  std::vector<int32_t> source_;
};

}  // namespace rammer::viz
