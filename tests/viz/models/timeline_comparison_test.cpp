// Predicted vs measured: per-rTask slip matched by RTask, unmatched and
// duplicated rTasks reported, plan mismatches warned about.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/viz/timeline_test_traces.h"
#include "viz/models/trace_comparison.h"

namespace rammer::viz {
namespace {

sim::TaskEvent task(int32_t op, int64_t rtask, double start, double end) {
  sim::TaskEvent e;
  e.task = {op, rtask};
  e.program = 0;
  e.veu = static_cast<int32_t>(rtask);
  e.startUs = start;
  e.endUs = end;
  return e;
}

TEST(TimelineComparison, SlipIsMeasuredMinusPredictedStart) {
  sim::Trace p;
  p.opNames = {"a", "b", "c"};
  p.tasks = {task(0, 0, 0, 2), task(0, 1, 5, 6), task(1, 0, 10, 12)};
  p.totalUs = 12;
  sim::Trace m;
  m.opNames = p.opNames;
  // In another order; (1,0) missing, (2,0) extra.
  m.tasks = {task(0, 1, 7, 9), task(2, 0, 1, 2), task(0, 0, 1, 3.5)};
  m.totalUs = 9;
  const TraceComparison c = compareTraces(p, m);
  ASSERT_EQ(c.matched.size(), 2u);
  EXPECT_EQ(c.matched[0].task, (schedule::RTask{0, 0}));
  EXPECT_EQ(c.matched[0].predicted, 0);
  EXPECT_EQ(c.matched[0].measured, 2);
  EXPECT_DOUBLE_EQ(c.matched[0].startSlipUs, 1);
  EXPECT_DOUBLE_EQ(c.matched[0].durationDeltaUs, 0.5);
  EXPECT_EQ(c.matched[1].task, (schedule::RTask{0, 1}));
  EXPECT_DOUBLE_EQ(c.matched[1].startSlipUs, 2);
  EXPECT_DOUBLE_EQ(c.matched[1].durationDeltaUs, 1);
  EXPECT_EQ(c.onlyPredicted, std::vector<int32_t>{2});
  EXPECT_EQ(c.onlyMeasured, std::vector<int32_t>{1});
  EXPECT_FALSE(c.identicalTaskSets());
  EXPECT_DOUBLE_EQ(c.meanSlipUs, 1.5);
  EXPECT_DOUBLE_EQ(c.maxAbsSlipUs, 2);
  EXPECT_DOUBLE_EQ(c.slipOfMeasured[0], 2);
  EXPECT_TRUE(std::isnan(c.slipOfMeasured[1]));
  EXPECT_DOUBLE_EQ(c.slipOfPredicted[0], 1);
  EXPECT_TRUE(std::isnan(c.slipOfPredicted[2]));
  EXPECT_DOUBLE_EQ(c.predictedTotalUs, 12);
  EXPECT_DOUBLE_EQ(c.measuredTotalUs, 9);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("1 predicted and 1 measured rTasks have no partner"), std::string::npos) << c.warnings[0];
}

TEST(TimelineComparison, DuplicatesAndRenamedOpsAreReported) {
  sim::Trace p;
  p.opNames = {"conv", "relu"};
  p.tasks = {task(0, 0, 0, 1), task(1, 0, 1, 2)};
  sim::Trace m;
  m.opNames = {"conv", "sigmoid"};
  m.tasks = {task(0, 0, 0, 1), task(0, 0, 3, 4), task(1, 0, 1, 2)};
  const TraceComparison c = compareTraces(p, m);
  ASSERT_EQ(c.matched.size(), 1u);
  EXPECT_EQ(c.matched[0].task, (schedule::RTask{1, 0}));
  EXPECT_EQ(c.onlyPredicted, std::vector<int32_t>{0}) << "its partner is ambiguous";
  EXPECT_EQ(c.onlyMeasured, (std::vector<int32_t>{0, 1}));
  bool renamed = false;
  bool duplicated = false;
  for (const std::string& w : c.warnings) {
    renamed |= w.find("op 1 is 'relu' in the prediction but 'sigmoid'") != std::string::npos;
    duplicated |= w.find("2 measured rTask events share a RTask") != std::string::npos;
  }
  EXPECT_TRUE(renamed);
  EXPECT_TRUE(duplicated);
}

TEST(TimelineComparison, LargeTracesMatchTaskByTask) {
  viztest::SyntheticTraceOptions o;
  o.tasks = 50000;
  o.sms = 16;
  const auto predicted = viztest::makeSyntheticTrace(o);
  const auto measured = viztest::makeMeasuredCopy(*predicted, 1000);  // drops every 1000th
  const TraceComparison c = compareTraces(*predicted, *measured);
  EXPECT_EQ(c.onlyPredicted.size(), 50u);
  EXPECT_TRUE(c.onlyMeasured.empty());
  ASSERT_EQ(c.matched.size(), predicted->tasks.size() - 50);
  for (int32_t i : c.onlyPredicted) EXPECT_EQ(i % 1000, 0);
  for (const TaskSlip& s : c.matched) {
    ASSERT_NEAR(s.startSlipUs, viztest::expectedSlip(static_cast<size_t>(s.predicted)), 1e-9);
    ASSERT_EQ(measured->tasks[static_cast<size_t>(s.measured)].task, predicted->tasks[static_cast<size_t>(s.predicted)].task);
  }
  EXPECT_NEAR(c.maxAbsSlipUs, 0.3, 1e-9);
  EXPECT_TRUE(c.warnings.size() == 1u);  // only the unmatched count
}

}  // namespace
}  // namespace rammer::viz
