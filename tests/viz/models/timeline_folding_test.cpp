// Folded SMs (issue #17 item 4): one lane per folded SM holding all its
// vEUs' rTasks, the others a lane per vEU; a measurement drawn over a
// folded prediction lands in the same SM lanes.
#include <gtest/gtest.h>

#include <set>

#include "tests/viz/timeline_test_traces.h"
#include "viz/models/timeline_model.h"

namespace rammer::viz {
namespace {

std::shared_ptr<sim::Trace> smallTrace() {
  viztest::SyntheticTraceOptions o;
  o.tasks = 2000;
  o.sms = 6;
  o.veusPerSM = 4;
  o.programs = 2;
  return viztest::makeSyntheticTrace(o);
}

TEST(TimelineFolding, AFoldedSmIsOneLaneWithAllItsVeus) {
  const auto trace = smallTrace();
  const TimelineModel whole(trace);
  ASSERT_EQ(whole.numLanes(), 24);
  EXPECT_EQ(whole.sms(), (std::set<int32_t>{0, 1, 2, 3, 4, 5}));

  const TimelineModel folded(trace, nullptr, {0, 3});
  EXPECT_EQ(folded.foldedSms(), (std::set<int32_t>{0, 3}));
  ASSERT_EQ(folded.numLanes(), 2 + 4 * 4);
  size_t foldedLanes = 0;
  for (const SmGroup& g : folded.smGroups()) {
    const TimelineLane& first = folded.lane(g.firstLane);
    if (g.sm == 0 || g.sm == 3) {
      EXPECT_EQ(g.numLanes, 1);
      EXPECT_TRUE(first.folded());
      EXPECT_EQ(first.veus, 4);
      ++foldedLanes;
    } else {
      EXPECT_EQ(g.numLanes, 4);
      EXPECT_FALSE(first.folded());
    }
  }
  EXPECT_EQ(foldedLanes, 2u);
  // Every rTask is drawn: an SM's lane holds what its vEUs' lanes held.
  size_t total = 0;
  for (int l = 0; l < folded.numLanes(); ++l) total += folded.tasks().laneSize(l);
  EXPECT_EQ(total, trace->tasks.size());
  for (const SmGroup& g : whole.smGroups()) {
    if (g.sm != 0) continue;
    size_t sm0 = 0;
    for (int l = g.firstLane; l < g.firstLane + g.numLanes; ++l) sm0 += whole.tasks().laneSize(l);
    EXPECT_EQ(folded.tasks().laneSize(folded.smGroups().front().firstLane), sm0);
  }
  for (size_t i = 0; i < trace->tasks.size(); ++i) {
    const TimelineLane& lane = folded.lane(folded.laneOfTask(static_cast<int32_t>(i)));
    if (lane.folded()) EXPECT_EQ(folded.laneOfVeu(trace->tasks[i].veu), folded.laneOfTask(static_cast<int32_t>(i)));
    else EXPECT_EQ(lane.veu, trace->tasks[i].veu);
  }
}

TEST(TimelineFolding, AMeasurementOverAFoldedPredictionUsesItsLanes) {
  const auto predicted = smallTrace();
  const auto measured = viztest::makeMeasuredCopy(*predicted);
  const TimelineModel rows(predicted, nullptr, {1});
  const TimelineModel over(measured, &rows, {1});
  EXPECT_EQ(over.numLanes(), rows.numLanes());
  for (size_t i = 0; i < measured->tasks.size(); ++i)
    EXPECT_LT(over.laneOfTask(static_cast<int32_t>(i)), rows.numLanes());
}

}  // namespace
}  // namespace rammer::viz
