// The Compare window computes both plans on a worker and shows them: the
// table's ratio is latency A over B, and both timelines share one axis.
#include "viz/widgets/compare_view.h"

#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTableWidget>

#include "tests/viz/editing_fixtures.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::viz {
namespace {

TEST(CompareViewTest, ComparesSequentialWithWavefront) {
  const PipelineResult r = viztest::planSampleCnn();
  ASSERT_TRUE(r.optimized);
  CompareView view;
  view.resize(900, 700);
  EXPECT_FALSE(view.compare("sequential", "wavefront"));  // no model yet
  view.setModel(r.optimized, "h100");
  QSignalSpy done(&view, &CompareView::compared);
  ASSERT_TRUE(view.compare("sequential", "wavefront"));
  EXPECT_TRUE(view.isBusy());
  ASSERT_TRUE(done.wait(120000));
  ASSERT_TRUE(done.first().first().toBool()) << view.statusText().toStdString();
  ASSERT_TRUE(view.comparison());
  const PlanComparison& c = *view.comparison();
  EXPECT_EQ(c.a.policy, "sequential");
  EXPECT_EQ(c.b.policy, "wavefront");
  EXPECT_DOUBLE_EQ(c.ratio(), c.a.latencyUs / c.b.latencyUs);
  // The table shows the same numbers.
  EXPECT_EQ(view.table()->item(CompareView::LatencyRow, 0)->text(), QString::number(c.a.latencyUs, 'f', 1));
  EXPECT_EQ(view.table()->item(CompareView::LatencyRow, 1)->text(), QString::number(c.b.latencyUs, 'f', 1));
  EXPECT_EQ(view.table()->item(CompareView::LatencyRow, 2)->text(), QString::number(c.ratio(), 'f', 2));
  EXPECT_EQ(view.table()->item(CompareView::ProgramsRow, 0)->text(), QString::number(c.a.programs));
  // One time axis: both show the same window, and moving one moves the other.
  EXPECT_EQ(&view.timelineA()->model().trace(), c.a.trace.get());
  EXPECT_DOUBLE_EQ(view.timelineA()->visibleStartUs(), view.timelineB()->visibleStartUs());
  EXPECT_DOUBLE_EQ(view.timelineA()->visibleEndUs(), view.timelineB()->visibleEndUs());
  view.timelineA()->setVisibleRange(1.0, 2.0);
  EXPECT_DOUBLE_EQ(view.timelineB()->visibleStartUs(), view.timelineA()->visibleStartUs());
  EXPECT_DOUBLE_EQ(view.timelineB()->visibleEndUs(), view.timelineA()->visibleEndUs());
}

}  // namespace
}  // namespace rammer::viz
