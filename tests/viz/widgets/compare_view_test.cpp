// The Compare window (issue #17 item 3): every policy planned on a worker
// and shown side by side, the table's numbers those of the plans, a bar per
// latency, one timeline per plan on one time axis, and a click on a policy
// naming it.
#include "viz/widgets/compare_view.h"

#include <gtest/gtest.h>

#include <QHeaderView>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "core/schedule/policy.h"
#include "tests/viz/editing_fixtures.h"
#include "viz/widgets/latency_bars.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::viz {
namespace {

TEST(CompareViewTest, ComparesEveryPolicy) {
  const PipelineResult r = viztest::planSampleCnn();
  ASSERT_TRUE(r.artifacts.optimized);
  CompareView view;
  view.resize(1100, 900);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  EXPECT_FALSE(view.compare());  // no model yet
  view.setModel({r.artifacts.original, r.artifacts.optimized, r.request.options.policy}, "h100");
  QSignalSpy done(&view, &CompareView::compared);
  ASSERT_TRUE(view.compare());
  EXPECT_TRUE(view.isBusy());
  ASSERT_TRUE(done.wait(120000));
  ASSERT_TRUE(done.first().first().toBool()) << view.statusText().toStdString();
  const auto& results = view.results();
  const auto names = schedule::policyNames();
  ASSERT_EQ(results.size(), names.size());
  ASSERT_EQ(view.table()->columnCount(), static_cast<int>(names.size()));
  ASSERT_EQ(view.timelines().size(), names.size());
  ASSERT_EQ(view.bars()->bars().size(), names.size());
  const PlanSummary* sequential = nullptr;
  for (const PlanSummary& s : results)
    if (s.policy == schedule::PolicyId::Sequential) sequential = &s;
  ASSERT_NE(sequential, nullptr);
  for (size_t i = 0; i < names.size(); ++i) {
    const PlanSummary& s = results[i];
    const int col = static_cast<int>(i);
    EXPECT_EQ(schedule::policyName(s.policy), names[i]);
    EXPECT_EQ(view.table()->horizontalHeaderItem(col)->text().toStdString(), schedule::policyName(s.policy));
    EXPECT_EQ(view.table()->item(CompareView::LatencyRow, col)->text(), QString::number(s.figures.predictedUs, 'f', 1));
    EXPECT_EQ(view.table()->item(CompareView::SpeedupRow, col)->text(),
              QStringLiteral("%1x").arg(sequential->figures.predictedUs / s.figures.predictedUs, 0, 'f', 2));
    EXPECT_EQ(view.table()->item(CompareView::ProgramsRow, col)->text(), QString::number(s.figures.programs));
    EXPECT_EQ(view.table()->item(CompareView::BarriersRow, col)->text(), QString::number(s.figures.barriers));
    EXPECT_DOUBLE_EQ(view.bars()->bars()[i].latencyUs, s.figures.predictedUs);
    EXPECT_EQ(&view.timelines()[i]->model().trace(), s.predicted.get());
  }
  EXPECT_EQ(view.table()->item(CompareView::SpeedupRow, 0)->text(), "1.00x");  // sequential over itself
  // Every timeline opens on the same window: up to the slowest plan's end.
  double slowest = 0;
  for (const PlanSummary& s : results) slowest = std::max(slowest, s.figures.predictedUs);
  for (TimelineView* t : view.timelines()) {
    EXPECT_DOUBLE_EQ(t->visibleStartUs(), 0);
    EXPECT_NEAR(t->visibleEndUs(), slowest, 1e-9 * slowest);
  }
  EXPECT_GE(view.bars()->height(), view.bars()->sizeHint().height()) << "every bar is visible";
  // One time axis: moving one timeline moves every other.
  view.timelines()[1]->setVisibleRange(1.0, 2.0);
  for (TimelineView* t : view.timelines()) {
    EXPECT_DOUBLE_EQ(t->visibleStartUs(), 1.0);
    EXPECT_DOUBLE_EQ(t->visibleEndUs(), 2.0);
  }
  // A click on a policy's bar or column names it.
  QSignalSpy chosen(&view, &CompareView::policyChosen);
  QTest::mouseClick(view.bars(), Qt::LeftButton, {}, view.bars()->barRect(2).center());
  ASSERT_EQ(chosen.count(), 1);
  EXPECT_EQ(chosen.last().first().toString().toStdString(), names[2]);
  emit view.table()->horizontalHeader()->sectionClicked(3);
  ASSERT_EQ(chosen.count(), 2);
  EXPECT_EQ(chosen.last().first().toString().toStdString(), names[3]);
}

}  // namespace
}  // namespace rammer::viz
