#include "viz/models/timeline_lane_index.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace rammer::viz {

namespace {

// Pixel column <-> time. Every boundary is computed by the same formula, so
// "does interval overlap column c" means the same thing everywhere.
struct Columns {
  Columns(double originUs, double usPerPx) : origin(originUs), dt(usPerPx), inv(1 / usPerPx) {}
  double origin;
  double dt;
  double inv;  // painting asks for columns a million times: multiply, do not divide
  double at(int64_t c) const { return origin + static_cast<double>(c) * dt; }
  // The column containing t, clamped to [lo, hi].
  int64_t of(double t, int64_t lo, int64_t hi) const {
    const double f = (t - origin) * inv;
    if (!(f >= static_cast<double>(lo))) return lo;  // also catches NaN
    // Truncation is floor here (f >= lo >= 0 in practice; at() settles the
    // rest), and the product may round across a boundary: settle it with at().
    auto c = f >= static_cast<double>(hi) ? hi : static_cast<int64_t>(f);
    while (c < hi && at(c + 1) <= t) ++c;
    while (c > lo && at(c) > t) --c;
    return c;
  }
};

// Per-op coverage of one sparse column; at most denseThreshold entries.
struct OpCover {
  int32_t op;
  double covered;
  double bestOverlap;  // largest single interval of this op in the column
  int32_t bestSource;
};

}  // namespace

TimelineLaneIndex::TimelineLaneIndex(int numLanes, std::vector<LaneInterval> intervals) {
  numLanes = std::max(0, numLanes);
  // A NaN would break the sort's ordering; an infinite time cannot be drawn.
  std::erase_if(intervals, [&](const LaneInterval& iv) {
    return iv.lane < 0 || iv.lane >= numLanes || !std::isfinite(iv.startUs) || !std::isfinite(iv.endUs);
  });
  for (LaneInterval& iv : intervals) {
    if (!(iv.endUs >= iv.startUs)) iv.endUs = iv.startUs;
  }

  // Bucket by lane (stable, O(n)), then sort each lane by start unless it
  // already is: traces list events by (program, vEU, start), so usually it is.
  laneBegin_.assign(static_cast<size_t>(numLanes) + 1, 0);
  for (const LaneInterval& iv : intervals) ++laneBegin_[static_cast<size_t>(iv.lane) + 1];
  std::partial_sum(laneBegin_.begin(), laneBegin_.end(), laneBegin_.begin());
  std::vector<LaneInterval> byLane(intervals.size());
  {
    std::vector<size_t> next(laneBegin_.begin(), laneBegin_.end() - 1);
    for (const LaneInterval& iv : intervals) byLane[next[static_cast<size_t>(iv.lane)]++] = iv;
  }
  intervals = std::move(byLane);
  auto before = [](const LaneInterval& a, const LaneInterval& b) {
    if (a.startUs != b.startUs) return a.startUs < b.startUs;
    if (a.endUs != b.endUs) return a.endUs < b.endUs;
    return a.source < b.source;
  };
  for (int lane = 0; lane < numLanes; ++lane) {
    const auto b = intervals.begin() + static_cast<ptrdiff_t>(laneBegin_[static_cast<size_t>(lane)]);
    const auto e = intervals.begin() + static_cast<ptrdiff_t>(laneBegin_[static_cast<size_t>(lane) + 1]);
    if (!std::is_sorted(b, e, before)) std::sort(b, e, before);
  }

  const size_t n = intervals.size();
  start_.resize(n);
  end_.resize(n);
  maxEnd_.resize(n);
  op_.resize(n);
  source_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const LaneInterval& iv = intervals[k];
    start_[k] = iv.startUs;
    end_[k] = iv.endUs;
    op_[k] = iv.op;
    source_[k] = iv.source;
    const bool laneFirst = k == laneBegin_[static_cast<size_t>(iv.lane)];
    maxEnd_[k] = laneFirst ? iv.endUs : std::max(maxEnd_[k - 1], iv.endUs);
  }
}

size_t TimelineLaneIndex::laneSize(int lane) const {
  auto [b, e] = laneRange(lane);
  return e - b;
}

std::pair<size_t, size_t> TimelineLaneIndex::laneRange(int lane) const {
  if (lane < 0 || lane >= numLanes()) return {0, 0};
  return {laneBegin_[static_cast<size_t>(lane)], laneBegin_[static_cast<size_t>(lane) + 1]};
}

size_t TimelineLaneIndex::firstEndingAfter(size_t from, size_t laneEnd, double tUs) const {
  return static_cast<size_t>(std::upper_bound(maxEnd_.begin() + static_cast<ptrdiff_t>(from),
                                              maxEnd_.begin() + static_cast<ptrdiff_t>(laneEnd), tUs) -
                             maxEnd_.begin());
}

std::pair<size_t, size_t> TimelineLaneIndex::overlapping(int lane, double t0, double t1) const {
  auto [lb, le] = laneRange(lane);
  const size_t b = firstEndingAfter(lb, le, t0);
  const size_t e = static_cast<size_t>(std::lower_bound(start_.begin() + static_cast<ptrdiff_t>(b),
                                                        start_.begin() + static_cast<ptrdiff_t>(le), t1) -
                                       start_.begin());
  return {b, std::max(b, e)};
}

void TimelineLaneIndex::marks(int lane, const LodQuery& q, std::vector<TimelineMark>& out) const {
  if (lane < 0 || lane >= numLanes() || q.x1 <= q.x0 || !(q.usPerPx > 0) || !std::isfinite(q.originUs)) return;
  auto [lb, le] = laneRange(lane);
  const Columns col(q.originUs, q.usPerPx);
  const int dense = std::max(0, q.denseThreshold);
  const size_t base = out.size();

  // Appends a mark, extending the previous one when it continues the same
  // interval (or the same op's dense run) in the next column.
  auto emit = [&](const TimelineMark& m) {
    if (out.size() > base) {
      TimelineMark& last = out.back();
      if (last.x1 == m.x0 && last.dense == m.dense && last.op == m.op && (m.dense || last.source == m.source)) {
        last.x1 = m.x1;
        return;
      }
    }
    out.push_back(m);
  };

  std::vector<OpCover> cover;
  cover.reserve(static_cast<size_t>(dense) + 1);
  int64_t c = q.x0;
  const int64_t cEnd = q.x1;
  size_t i = firstEndingAfter(lb, le, col.at(c));
  while (i < le && c < cEnd) {
    const double cs = col.at(c);
    const double ce = col.at(c + 1);
    if (start_[i] >= ce) {  // idle columns up to the next interval: skip them
      c = col.of(start_[i], c + 1, cEnd);
      continue;
    }

    // Gather the intervals overlapping column c; stop counting once dense.
    cover.clear();
    int count = 0;
    size_t j = i;
    size_t longest = le;  // the interval reaching furthest right
    double otherMaxEnd = -std::numeric_limits<double>::infinity();
    while (j < le && start_[j] < ce) {
      if (end_[j] > cs) {
        if (++count > dense) break;
        const double overlap = std::min(end_[j], ce) - std::max(start_[j], cs);
        auto it = std::find_if(cover.begin(), cover.end(), [&](const OpCover& oc) { return oc.op == op_[j]; });
        if (it == cover.end()) {
          cover.push_back({op_[j], overlap, overlap, source_[j]});
        } else {
          it->covered += overlap;
          if (overlap > it->bestOverlap) {
            it->bestOverlap = overlap;
            it->bestSource = source_[j];
          }
        }
        if (longest == le || end_[j] > end_[longest]) {
          if (longest != le) otherMaxEnd = std::max(otherMaxEnd, end_[longest]);
          longest = j;
        } else {
          otherMaxEnd = std::max(otherMaxEnd, end_[j]);
        }
      }
      ++j;
    }

    if (count > dense) {
      // Dense column: count by binary search, colour by the interval at the
      // column's middle, and move on without visiting the rest.
      const auto sb = start_.begin();
      const size_t jEnd = static_cast<size_t>(
          std::lower_bound(sb + static_cast<ptrdiff_t>(j), sb + static_cast<ptrdiff_t>(le), ce) - sb);
      const double mid = cs + 0.5 * q.usPerPx;
      size_t rep = static_cast<size_t>(
          std::upper_bound(sb + static_cast<ptrdiff_t>(i), sb + static_cast<ptrdiff_t>(jEnd), mid) - sb);
      rep = rep > i ? rep - 1 : i;
      const auto n = static_cast<int32_t>(std::min<size_t>(jEnd - i, std::numeric_limits<int32_t>::max()));
      emit({static_cast<int32_t>(c), static_cast<int32_t>(c + 1), op_[rep], source_[rep], n, true});
      ++c;
      if (c < cEnd) i = advance(i, le, col.at(c));
      continue;
    }
    if (count == 0) {  // only zero-length intervals here
      i = j;
      continue;
    }

    const OpCover* best = &cover.front();
    for (const OpCover& oc : cover) {
      if (oc.covered > best->covered || (oc.covered == best->covered && oc.op < best->op)) best = &oc;
    }
    emit({static_cast<int32_t>(c), static_cast<int32_t>(c + 1), best->op, best->bestSource, count, false});

    // Columns lying wholly inside the longest interval, with nothing else in
    // them, are one mark: a zoomed-in box costs O(1), not O(its width).
    int64_t next = c + 1;
    const double longestEnd = end_[longest];
    if (longestEnd > ce && otherMaxEnd <= ce) {
      const double limit = j < le ? std::min(longestEnd, start_[j]) : longestEnd;
      const int64_t m = col.of(limit, c + 1, cEnd);  // columns c+1 .. m-1 are covered solely
      if (m > c + 1) {
        emit({static_cast<int32_t>(c + 1), static_cast<int32_t>(m), op_[longest], source_[longest], 1, false});
        next = m;
      }
    }
    c = next;
    if (c < cEnd) i = advance(i, le, col.at(c));
  }
}

size_t TimelineLaneIndex::advance(size_t from, size_t laneEnd, double tUs) const {
  // Painting walks forward a column at a time, so the answer is usually a
  // step or two away: look there before a binary search.
  for (int k = 0; k < 4; ++k, ++from) {
    if (from >= laneEnd || maxEnd_[from] > tUs) return from;
  }
  return firstEndingAfter(from, laneEnd, tUs);
}

int32_t TimelineLaneIndex::hit(int lane, double tUs, double toleranceUs) const {
  auto [lb, le] = laneRange(lane);
  if (lb == le || !std::isfinite(tUs)) return -1;
  const size_t i = firstEndingAfter(lb, le, tUs);
  if (i < le && start_[i] <= tUs) return source_[i];
  // Nearest neighbour on either side, if close enough.
  double bestDist = std::numeric_limits<double>::infinity();
  int32_t best = -1;
  if (i < le) {
    bestDist = start_[i] - tUs;
    best = source_[i];
  }
  if (i > lb && tUs - end_[i - 1] < bestDist) {
    bestDist = tUs - end_[i - 1];
    best = source_[i - 1];
  }
  return bestDist <= toleranceUs ? best : -1;
}

}  // namespace rammer::viz
