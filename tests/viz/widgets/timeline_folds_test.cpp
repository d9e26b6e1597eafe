// Folding SMs in the timeline view (issue #17 item 4): the actions and a
// double-click on an SM's name rebuild the lanes and keep the window and
// the selection.
#include "viz/widgets/timeline_folds.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QTest>

#include "tests/viz/timeline_test_traces.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::viz {
namespace {

TEST(TimelineFolds, ActionsAndDoubleClicksFoldAndKeepTheView) {
  viztest::SyntheticTraceOptions o;
  o.tasks = 5000;
  o.sms = 20;
  o.veusPerSM = 4;
  TimelineView view;
  view.resize(900, 500);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  view.setTrace(viztest::makeSyntheticTrace(o));
  ASSERT_EQ(view.model().numLanes(), 80);
  EXPECT_TRUE(TimelineFolds::crowded(view.model(), 500, view.laneHeight()));
  view.setVisibleRange(10, 20);
  view.selectOps({2});

  view.folds()->foldAction()->trigger();
  EXPECT_EQ(view.model().numLanes(), 20);
  EXPECT_FALSE(TimelineFolds::crowded(view.model(), 500, view.laneHeight()));
  EXPECT_NEAR(view.zoom()->startUs(), 10, 1e-9);
  EXPECT_NEAR(view.zoom()->spanUs(), 10, 1e-9);
  EXPECT_EQ(view.selectedOps(), QList<int>{2});

  // A double-click on SM 0's name (the first lane's header) unfolds it.
  const int y = *view.yOfLane(TimelineView::Section::Primary, 0);
  QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, QPoint(10, y));
  EXPECT_EQ(view.model().numLanes(), 20 - 1 + 4);
  EXPECT_FALSE(view.model().lane(0).folded());
  EXPECT_EQ(view.folds()->folded().count(0), 0u);
  QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, QPoint(10, y));
  EXPECT_EQ(view.model().numLanes(), 20);

  view.folds()->unfoldAction()->trigger();
  EXPECT_EQ(view.model().numLanes(), 80);
  EXPECT_TRUE(view.folds()->folded().empty());
  QPixmap shot = view.grab();
  EXPECT_FALSE(shot.isNull());
}

}  // namespace
}  // namespace rammer::viz
