// The level-of-detail query and hit test of TimelineLaneIndex, checked
// against brute force (every interval against every pixel column) on random
// lanes: short and long intervals, gaps, back-to-back runs, zero lengths,
// and (as a malformed measurement may have) overlaps.
#include "viz/models/timeline_lane_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tests/viz/timeline_test_traces.h"

namespace rammer::viz {
namespace {

using viztest::TraceRng;

std::vector<LaneInterval> randomLanes(TraceRng& rng, int lanes, int perLane, bool allowOverlap) {
  std::vector<LaneInterval> out;
  int32_t source = 0;
  for (int lane = 0; lane < lanes; ++lane) {
    double t = rng.uniform(-5, 5);
    for (int k = 0; k < perLane; ++k) {
      // Durations over four decades so some intervals are far below a
      // column and some span many.
      const double scale = std::pow(10.0, static_cast<double>(rng.below(4)) - 2);
      double dur = rng.uniform(0, 1) * scale;
      if (rng.below(20) == 0) dur = 0;
      const double gap = rng.below(3) == 0 ? 0 : rng.uniform(0, 1) * scale;
      double start = t + gap;
      if (allowOverlap && rng.below(4) == 0) start -= rng.uniform(0, 2);
      out.push_back({start, start + dur, lane, static_cast<int32_t>(rng.below(5)), source++});
      t = std::max(t, start + dur);
    }
  }
  // Hand them over shuffled: the index must sort.
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[static_cast<size_t>(rng.below(static_cast<int64_t>(i)))]);
  return out;
}

struct Column {
  int count = 0;
  std::map<int32_t, double> coverByOp;
  double maxCover() const {
    double m = 0;
    for (auto& [op, c] : coverByOp) m = std::max(m, c);
    return m;
  }
};

// Brute force: what each pixel column of the query holds.
std::vector<Column> bruteColumns(const std::vector<LaneInterval>& ivs, int lane, const LodQuery& q) {
  std::vector<Column> cols(static_cast<size_t>(q.x1 - q.x0));
  for (const LaneInterval& iv : ivs) {
    if (iv.lane != lane) continue;
    for (int c = q.x0; c < q.x1; ++c) {
      const double cs = q.originUs + c * q.usPerPx;
      const double ce = q.originUs + (c + 1) * q.usPerPx;
      if (iv.startUs < ce && iv.endUs > cs) {
        Column& col = cols[static_cast<size_t>(c - q.x0)];
        ++col.count;
        col.coverByOp[iv.op] += std::min(iv.endUs, ce) - std::max(iv.startUs, cs);
      }
    }
  }
  return cols;
}

void checkMarks(const std::vector<LaneInterval>& ivs, const TimelineLaneIndex& index, int lane, const LodQuery& q) {
  std::vector<TimelineMark> marks;
  index.marks(lane, q, marks);
  const std::vector<Column> cols = bruteColumns(ivs, lane, q);
  std::map<int32_t, const LaneInterval*> bySource;
  for (const LaneInterval& iv : ivs) bySource[iv.source] = &iv;

  ASSERT_LE(static_cast<int>(marks.size()), q.x1 - q.x0) << "more marks than pixel columns";
  std::vector<int> owner(cols.size(), -1);
  for (size_t k = 0; k < marks.size(); ++k) {
    const TimelineMark& m = marks[k];
    ASSERT_LT(m.x0, m.x1);
    ASSERT_GE(m.x0, q.x0);
    ASSERT_LE(m.x1, q.x1);
    if (k > 0) {
      ASSERT_LE(marks[k - 1].x1, m.x0) << "marks overlap or are unsorted";
    }
    ASSERT_TRUE(bySource.count(m.source)) << "mark names no interval";
    EXPECT_EQ(bySource[m.source]->op, m.op);
    EXPECT_EQ(bySource[m.source]->lane, lane);
    for (int c = m.x0; c < m.x1; ++c) {
      const Column& col = cols[static_cast<size_t>(c - q.x0)];
      owner[static_cast<size_t>(c - q.x0)] = static_cast<int>(k);
      ASSERT_GT(col.count, 0) << "mark on idle column " << c;
      if (m.dense) {
        EXPECT_GT(col.count, q.denseThreshold) << "dense mark on a sparse column " << c;
      } else {
        EXPECT_LE(col.count, q.denseThreshold) << "sparse mark on a dense column " << c;
        ASSERT_TRUE(col.coverByOp.count(m.op)) << "column " << c << " has no interval of op " << m.op;
        EXPECT_GE(col.coverByOp.at(m.op), col.maxCover() - 1e-9 * q.usPerPx)
            << "column " << c << ": op " << m.op << " is not the one covering most";
      }
    }
  }
  for (size_t c = 0; c < cols.size(); ++c) {
    if (cols[c].count > 0) {
      EXPECT_GE(owner[c], 0) << "busy column " << c + static_cast<size_t>(q.x0) << " has no mark";
    }
  }
}

TEST(TimelineLaneIndex, LodMatchesBruteForceOnRandomLanes) {
  for (bool overlap : {false, true}) {
    TraceRng rng(overlap ? 7 : 3);
    const std::vector<LaneInterval> ivs = randomLanes(rng, 6, 300, overlap);
    const TimelineLaneIndex index(6, ivs);
    ASSERT_EQ(index.size(), ivs.size());
    for (int trial = 0; trial < 300; ++trial) {
      LodQuery q;
      q.usPerPx = std::pow(10.0, rng.uniform(-2.5, 1.0));
      q.originUs = rng.uniform(-20, 60);
      q.x0 = static_cast<int>(rng.below(50));
      q.x1 = q.x0 + 1 + static_cast<int>(rng.below(250));
      const int thresholds[] = {0, 1, 3, 8, 1000};
      q.denseThreshold = thresholds[rng.below(5)];
      const int lane = static_cast<int>(rng.below(6));
      SCOPED_TRACE(testing::Message() << "overlap " << overlap << " trial " << trial << " lane " << lane);
      checkMarks(ivs, index, lane, q);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(TimelineLaneIndex, ALongIntervalIsOneMarkAndCostsOneQueryStep) {
  // [10, 1000) zoomed so it spans 990 columns: one mark, not 990.
  const TimelineLaneIndex index(1, {{10, 1000, 0, 4, 0}, {1000, 1000.5, 0, 2, 1}});
  std::vector<TimelineMark> marks;
  index.marks(0, LodQuery{0, 1, 0, 2000, 8}, marks);
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[0].x0, 10);
  EXPECT_EQ(marks[0].x1, 1000);
  EXPECT_EQ(marks[0].op, 4);
  EXPECT_EQ(marks[1].x0, 1000);
  EXPECT_EQ(marks[1].x1, 1001);
  EXPECT_EQ(marks[1].op, 2);
}

TEST(TimelineLaneIndex, ManyTinyIntervalsInOneColumnAreOneDenseMark) {
  std::vector<LaneInterval> ivs;
  for (int k = 0; k < 1000; ++k) ivs.push_back({k * 0.001, k * 0.001 + 0.0005, 0, k % 3, k});
  const TimelineLaneIndex index(1, ivs);
  std::vector<TimelineMark> marks;
  index.marks(0, LodQuery{0, 1, 0, 10, 8}, marks);  // everything is in column 0
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_TRUE(marks[0].dense);
  EXPECT_EQ(marks[0].x0, 0);
  EXPECT_EQ(marks[0].x1, 1);
  EXPECT_EQ(marks[0].count, 1000);
}

TEST(TimelineLaneIndex, OverlappingQueryAndEmptyInputs) {
  const TimelineLaneIndex index(2, {{0, 1, 0, 0, 0}, {2, 3, 0, 0, 1}, {4, 5, 0, 0, 2}, {0, 9, 7, 0, 3}});
  EXPECT_EQ(index.numLanes(), 2);
  EXPECT_EQ(index.size(), 3u) << "the interval on lane 7 is dropped";
  auto [b, e] = index.overlapping(0, 2.5, 4.5);
  ASSERT_EQ(e - b, 2u);
  EXPECT_EQ(index.source(b), 1);
  EXPECT_EQ(index.source(b + 1), 2);
  EXPECT_EQ(index.laneSize(1), 0u);
  std::vector<TimelineMark> marks;
  index.marks(1, LodQuery{0, 1, 0, 100}, marks);
  index.marks(5, LodQuery{0, 1, 0, 100}, marks);
  index.marks(0, LodQuery{0, 0, 0, 100}, marks);  // no scale: nothing, no crash
  EXPECT_TRUE(marks.empty());
  EXPECT_EQ(TimelineLaneIndex().numLanes(), 0);
}

TEST(TimelineLaneIndex, HitTestMatchesBruteForce) {
  TraceRng rng(11);
  const std::vector<LaneInterval> ivs = randomLanes(rng, 3, 200, false);
  const TimelineLaneIndex index(3, ivs);
  for (int trial = 0; trial < 2000; ++trial) {
    const int lane = static_cast<int>(rng.below(3));
    const double t = rng.uniform(-10, 150);
    const double tol = rng.below(2) == 0 ? 0 : rng.uniform(0, 0.5);
    int32_t containing = -1;
    double nearest = 1e300;
    for (const LaneInterval& iv : ivs) {
      if (iv.lane != lane) continue;
      if (iv.startUs <= t && t < iv.endUs) containing = iv.source;
      const double d = t < iv.startUs ? iv.startUs - t : t >= iv.endUs ? t - iv.endUs : 0;
      nearest = std::min(nearest, d);
    }
    const int32_t got = index.hit(lane, t, tol);
    if (containing >= 0) {
      EXPECT_EQ(got, containing) << "t=" << t;
    } else if (nearest <= tol) {
      ASSERT_GE(got, 0) << "t=" << t << " tol=" << tol;
      const LaneInterval& iv = *std::find_if(ivs.begin(), ivs.end(), [&](auto& x) { return x.source == got; });
      const double d = t < iv.startUs ? iv.startUs - t : t - iv.endUs;
      EXPECT_NEAR(d, nearest, 1e-12);
    } else {
      EXPECT_EQ(got, -1) << "t=" << t << " tol=" << tol;
    }
  }
}

}  // namespace
}  // namespace rammer::viz
