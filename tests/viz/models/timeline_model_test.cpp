// TimelineModel (lanes, hit testing, tooltips, colours), the area summary
// against hand-computed numbers, and the time-axis helpers.
#include "viz/models/timeline_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/viz/timeline_test_traces.h"
#include "viz/models/timeline_area_summary.h"
#include "viz/models/timeline_palette.h"
#include "viz/models/timeline_time_axis.h"

namespace rammer::viz {
namespace {

sim::TaskEvent task(int32_t op, int64_t rtask, int32_t program, int32_t veu, int32_t order, double start, double end,
                    int32_t sm = -1) {
  sim::TaskEvent e;
  e.task = {op, rtask};
  e.program = program;
  e.veu = veu;
  e.order = order;
  e.sm = sm;
  e.startUs = start;
  e.endUs = end;
  return e;
}

sim::BarrierEvent barrier(int32_t program, int32_t veu, int32_t order, double start, double end, schedule::Slot last) {
  sim::BarrierEvent b;
  b.program = program;
  b.veu = veu;
  b.order = order;
  b.startUs = start;
  b.endUs = end;
  b.lastSlot = last;
  return b;
}

// Two SMs, vEUs 0..3 (vEU v on SM v % 2):
//   vEU 0: conv r0 [0,10)  barrier [10,12) (released by vEU 1 #0)  relu r0 [12,20)
//   vEU 1: conv r1 [5,15)
//   vEU 2: relu r1 [0,4)
//   vEU 3: nothing
// program 0 runs [0, 20).
std::shared_ptr<sim::Trace> handTrace() {
  auto t = std::make_shared<sim::Trace>();
  t->source = "predicted: hand";
  t->sms = 2;
  t->opNames = {"conv1", "relu1"};
  t->opTypes = {"Conv", "Relu"};
  t->kernelNames = {"conv_igemm_64x64", "elementwise_256"};
  t->tasks = {task(0, 0, 0, 0, 0, 0, 10), task(1, 0, 0, 0, 2, 12, 20), task(0, 1, 0, 1, 0, 5, 15),
              task(1, 1, 0, 2, 0, 0, 4)};
  t->barriers = {barrier(0, 0, 1, 10, 12, {1, 0})};
  t->programs = {{0, 4, 2, 0, 20}};
  t->totalUs = 20;
  return t;
}

TEST(TimelineModel, LanesAreGroupedBySmAndOrderedByVeu) {
  const TimelineModel m(handTrace());
  // vEUs 0, 2 on SM 0; vEU 1 on SM 1; vEU 3 has no events.
  ASSERT_EQ(m.numLanes(), 3);
  EXPECT_EQ(m.lane(0).sm, 0);
  EXPECT_EQ(m.lane(0).veu, 0);
  EXPECT_EQ(m.lane(1).sm, 0);
  EXPECT_EQ(m.lane(1).veu, 2);
  EXPECT_EQ(m.lane(2).sm, 1);
  EXPECT_EQ(m.lane(2).veu, 1);
  ASSERT_EQ(m.smGroups().size(), 2u);
  EXPECT_EQ(m.smGroups()[0].numLanes, 2);
  EXPECT_EQ(m.smGroups()[1].firstLane, 2);
  EXPECT_EQ(m.laneOfTask(2), 2);
  EXPECT_EQ(m.laneOfBarrier(0), 0);
  EXPECT_EQ(m.laneOfVeu(2), 1);
  EXPECT_EQ(m.laneOfVeu(3), -1);
  EXPECT_DOUBLE_EQ(m.startUs(), 0);
  EXPECT_DOUBLE_EQ(m.endUs(), 20);
}

TEST(TimelineModel, MeasuredSmsMakeTheirOwnLanesUnlessAligned) {
  auto predicted = handTrace();
  auto measured = std::make_shared<sim::Trace>(*predicted);
  measured->tasks[2].sm = 0;  // vEU 1 ran on SM 0
  measured->tasks.push_back(task(1, 2, 0, 5, 0, 1, 2, 1));  // a vEU the prediction lacks
  const TimelineModel own(measured);
  EXPECT_EQ(own.lane(own.laneOfTask(2)).sm, 0);
  const TimelineModel p(predicted);
  const TimelineModel aligned(measured, &p);
  // Aligned: same rows as the prediction for known vEUs, a new one for vEU 5.
  ASSERT_EQ(aligned.numLanes(), p.numLanes() + 1);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(aligned.laneOfTask(i), p.laneOfTask(i)) << i;
  EXPECT_EQ(aligned.laneOfTask(4), p.numLanes());
  EXPECT_EQ(aligned.lane(p.numLanes()).veu, 5);
}

TEST(TimelineModel, HitTestFindsTasksAndBarriers) {
  const TimelineModel m(handTrace());
  auto hit = m.hitTest(0, 5);
  EXPECT_EQ(hit.kind, TimelineHit::Kind::Task);
  EXPECT_EQ(hit.index, 0);
  hit = m.hitTest(0, 11);
  EXPECT_EQ(hit.kind, TimelineHit::Kind::Barrier);
  EXPECT_EQ(hit.index, 0);
  EXPECT_EQ(m.hitTest(0, 12).index, 1) << "an rTask starting at t contains t";
  EXPECT_FALSE(m.hitTest(1, 6));
  EXPECT_FALSE(m.hitTest(1, 4.5, 0.4));
  hit = m.hitTest(1, 4.5, 0.6);
  EXPECT_EQ(hit.kind, TimelineHit::Kind::Task);
  EXPECT_EQ(hit.index, 3);
  EXPECT_FALSE(m.hitTest(9, 1)) << "no such lane";
}

TEST(TimelineModel, TooltipsSayWhatAnRTaskWaitedFor) {
  const TimelineModel m(handTrace());
  const QString relu = m.describeTask(1);
  EXPECT_TRUE(relu.contains("op: relu1 (Relu)")) << relu.toStdString();
  EXPECT_TRUE(relu.contains("rTask: 0")) << relu.toStdString();
  EXPECT_TRUE(relu.contains("rKernel: elementwise_256")) << relu.toStdString();
  EXPECT_TRUE(relu.contains("program 0 · vEU 0 · SM 0 · #2")) << relu.toStdString();
  EXPECT_TRUE(relu.contains("start: 12.000 µs")) << relu.toStdString();
  EXPECT_TRUE(relu.contains("duration: 8.00 µs")) << relu.toStdString();
  // The barrier in front of it waited 2 µs for conv1 rTask 1 on vEU 1.
  EXPECT_TRUE(relu.contains("waited 2.00 µs for: conv1 (Conv) rTask 1 on vEU 1 (#0, ended 15.000 µs)"))
      << relu.toStdString();
  EXPECT_TRUE(m.describeTask(0).contains("waited for: the program start"));
  const QString b = m.describeBarrier(0);
  EXPECT_TRUE(b.contains("barrier wait")) << b.toStdString();
  EXPECT_TRUE(b.contains("waited for: conv1 (Conv) rTask 1 on vEU 1")) << b.toStdString();
  EXPECT_TRUE(m.describeTask(99).isEmpty());
  EXPECT_EQ(m.findTask(0, {0, 2}), 1);
  EXPECT_EQ(m.findTask(0, {0, 1}), -1) << "#1 on vEU 0 is the barrier";
  EXPECT_EQ(m.findBarrier(0, {0, 1}), 0);
}

TEST(TimelineModel, SlotLookupWorksOnUnsortedTraces) {
  auto t = handTrace();
  std::reverse(t->tasks.begin(), t->tasks.end());  // index 2 is now relu r0 on vEU 0 #2
  const TimelineModel m(t);
  EXPECT_EQ(m.findTask(0, {0, 2}), 2);
  EXPECT_EQ(m.findTask(0, {2, 0}), 0);
}

TEST(TimelineModel, OpColoursComeFromAStableHashOfTheName) {
  // FNV-1a test vectors.
  EXPECT_EQ(stableHash(""), 0x811C9DC5u);
  EXPECT_EQ(stableHash("a"), 0xE40C292Cu);
  EXPECT_EQ(stableHash("foobar"), 0xBF9CF968u);
  const TimelineModel a(handTrace());
  auto other = handTrace();
  std::swap(other->opNames[0], other->opNames[1]);
  const TimelineModel b(other);
  EXPECT_EQ(a.opColor(0), opColor("conv1"));
  EXPECT_EQ(a.opColor(0), b.opColor(1)) << "same name, same colour, whatever the index";
  EXPECT_EQ(a.opName(7), "op 7");
}

TEST(TimelinePalette, SlipColoursSaturateAndUnmatchedStandsOut) {
  EXPECT_EQ(slipColor(0, 1), 0xBDBDBDu);
  EXPECT_EQ(slipColor(5, 1), 0xD62728u) << "late saturates at the scale";
  EXPECT_EQ(slipColor(-5, 1), 0x1F77B4u) << "early saturates at the scale";
  EXPECT_EQ(slipColor(std::nan(""), 1), kUnmatchedColor);
  const uint32_t half = slipColor(0.5, 1);  // halfway from grey to red
  EXPECT_EQ((half >> 16) & 0xFF, (0xBDu + 0xD6u + 1) / 2);
  EXPECT_EQ(fadeColor(0x000000, 1), 0xFFFFFFu);
  EXPECT_EQ(fadeColor(0x123456, 0), 0x123456u);
  EXPECT_TRUE(isDarkColor(0x4E79A7));
  EXPECT_FALSE(isDarkColor(0xEDC948));
}

TEST(TimelineModel, TasksOfOpsSelectsOnlyThoseOps) {
  const TimelineModel m(handTrace());
  const TimelineLaneIndex relu = m.tasksOfOps({1});
  EXPECT_EQ(relu.size(), 2u);
  EXPECT_EQ(relu.laneSize(0), 1u);
  EXPECT_EQ(relu.laneSize(1), 1u);
  EXPECT_EQ(relu.laneSize(2), 0u);
  EXPECT_EQ(m.tasksOfOps({}).size(), 0u);
}

TEST(TimelineAreaSummary, MatchesHandComputedNumbers) {
  const TimelineModel m(handTrace());
  // t in [4, 16], lanes 0 (vEU 0) and 1 (vEU 2):
  //   vEU 0: conv [4,10) = 6, barrier [10,12) = 2, relu [12,16) = 4  -> busy 10
  //   vEU 2: relu [0,4) ends at 4: nothing                           -> busy 0
  const AreaSummary s = summarizeArea(m, 16, 4, 1, 0);  // reversed inputs are normalised
  EXPECT_EQ(s.lanes, 2);
  EXPECT_DOUBLE_EQ(s.laneTimeUs, 24);
  EXPECT_DOUBLE_EQ(s.busyUs, 10);
  EXPECT_DOUBLE_EQ(s.idleUs, 14);
  EXPECT_DOUBLE_EQ(s.barrierWaitUs, 2);
  EXPECT_DOUBLE_EQ(s.busyFraction, 10.0 / 24);
  EXPECT_EQ(s.tasks, 2);
  ASSERT_EQ(s.perOp.size(), 2u);
  EXPECT_EQ(s.perOp[0].op, 0);
  EXPECT_DOUBLE_EQ(s.perOp[0].us, 6);
  EXPECT_EQ(s.perOp[1].op, 1);
  EXPECT_DOUBLE_EQ(s.perOp[1].us, 4);

  // All three lanes over [0, 20]: busy = 18 (vEU 0) + 4 (vEU 2) + 10 (vEU 1).
  const AreaSummary all = summarizeArea(m, 0, 20, 0, 99);
  EXPECT_EQ(all.lanes, 3);
  EXPECT_DOUBLE_EQ(all.busyUs, 32);
  EXPECT_DOUBLE_EQ(all.idleUs, 60 - 32);
  EXPECT_DOUBLE_EQ(all.perOp[0].us, 20);  // conv: 10 + 10
  EXPECT_EQ(all.perOp[0].tasks, 2);
  const QString text = formatAreaSummary(all, m);
  EXPECT_TRUE(text.contains("busy 53.3%")) << text.toStdString();
  EXPECT_TRUE(text.contains("conv1 (Conv): 20.0 µs (2 rTasks)")) << text.toStdString();

  EXPECT_EQ(summarizeArea(m, 5, 5, 0, 2).busyFraction, 0) << "an empty area is not NaN";
}

TEST(TimelineAreaSummary, OverlappingRTasksAreNotCountedTwiceAsBusy) {
  auto t = handTrace();
  t->tasks.push_back(task(1, 5, 0, 1, 1, 10, 18));  // overlaps conv r1 [5,15) on vEU 1
  const TimelineModel m(t);
  const AreaSummary s = summarizeArea(m, 0, 20, 2, 2);
  EXPECT_DOUBLE_EQ(s.busyUs, 13);  // union [5, 18)
  EXPECT_DOUBLE_EQ(s.perOp[0].us + s.perOp[1].us, 18);  // per-op time is each rTask's own
}

TEST(TimelineModel, MalformedEventsAreSkippedOrNamedNotFatal) {
  auto t = handTrace();
  const double nan = std::nan("");
  t->tasks.push_back(task(0, 7, 0, 1, 1, nan, 3));
  t->tasks.push_back(task(0, 8, 0, 1, 2, 20, INFINITY));
  t->tasks.push_back(task(-5, 0, 0, -1, 0, 1, 2));     // no op, no vEU
  t->tasks.push_back(task(1000, 0, 0, 2, 1, 6, 5));    // op beyond the names, end before start
  t->barriers.push_back(barrier(0, 2, 2, 7, 8, {42, 42}));  // released by a slot that does not exist
  const TimelineModel m(t);
  EXPECT_EQ(m.tasks().size(), t->tasks.size() - 2) << "NaN and infinite rTasks are not drawn";
  EXPECT_DOUBLE_EQ(m.endUs(), 20) << "the extent stays finite";
  EXPECT_TRUE(m.describeTask(6).contains("op: op -5")) << m.describeTask(6).toStdString();
  EXPECT_TRUE(m.describeTask(7).contains("op: op 1000")) << m.describeTask(7).toStdString();
  EXPECT_TRUE(m.describeTask(7).contains("duration: -1.00 µs")) << "shown as recorded";
  EXPECT_TRUE(m.describeBarrier(1).contains("waited for: vEU 42 #42")) << m.describeBarrier(1).toStdString();
  EXPECT_EQ(m.opColor(1000), opColor("op 1000"));
  const AreaSummary s = summarizeArea(m, 0, 30, 0, m.numLanes() - 1);
  EXPECT_GE(s.busyFraction, 0);
  EXPECT_LE(s.busyFraction, 1);
}

TEST(TimelineModel, SyntheticTraceIndexesEveryTask) {
  viztest::SyntheticTraceOptions o;
  o.tasks = 20000;
  o.sms = 8;
  o.veusPerSM = 4;
  const auto trace = viztest::makeSyntheticTrace(o);
  const TimelineModel m(trace);
  EXPECT_EQ(m.numLanes(), 32);
  EXPECT_EQ(m.smGroups().size(), 8u);
  EXPECT_EQ(m.tasks().size(), trace->tasks.size());
  EXPECT_EQ(m.barriers().size(), trace->barriers.size());
  for (size_t i = 0; i < trace->tasks.size(); i += 997) {
    const sim::TaskEvent& e = trace->tasks[i];
    const int lane = m.laneOfTask(static_cast<int32_t>(i));
    EXPECT_EQ(m.lane(lane).veu, e.veu);
    const auto hit = m.hitTest(lane, 0.5 * (e.startUs + e.endUs));
    EXPECT_EQ(hit.kind, TimelineHit::Kind::Task);
    EXPECT_EQ(hit.index, static_cast<int32_t>(i));
  }
}

TEST(TimelineTimeAxis, NiceStepsAndLabels) {
  EXPECT_DOUBLE_EQ(niceTickStep(0.3), 0.5);
  EXPECT_DOUBLE_EQ(niceTickStep(1), 1);
  EXPECT_DOUBLE_EQ(niceTickStep(1.01), 2);
  EXPECT_DOUBLE_EQ(niceTickStep(7), 10);
  EXPECT_NEAR(niceTickStep(0.2), 0.2, 1e-15);
  EXPECT_DOUBLE_EQ(niceTickStep(0), 1);
  const auto ticks = tickTimes(0.7, 3.1, 0.5);
  ASSERT_EQ(ticks.size(), 5u);
  EXPECT_DOUBLE_EQ(ticks.front(), 1.0);
  EXPECT_DOUBLE_EQ(ticks.back(), 3.0);
  EXPECT_TRUE(tickTimes(0, 1e9, 1e-3).empty()) << "too many ticks: none";
  EXPECT_EQ(formatDuration(0.85), "850 ns");
  EXPECT_EQ(formatDuration(12.5), "12.5 µs");
  EXPECT_EQ(formatDuration(3200), "3.20 ms");
  EXPECT_EQ(formatDuration(1.25e6), "1.25 s");
  EXPECT_EQ(formatDuration(-2), "-2.00 µs");
  EXPECT_EQ(formatTickLabel(1.5, 0.5), "1.5 µs");
  EXPECT_EQ(formatTickLabel(2000, 500), "2.0 ms");
  EXPECT_EQ(formatTickLabel(0.25, 0.05), "250 ns");
}

}  // namespace
}  // namespace rammer::viz
