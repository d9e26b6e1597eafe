// The timeline's visible window as an object: its actions own the Perfetto
// keys, zooming keeps the anchor in place, the window never leaves the
// traces' extent nor gets narrower than its floor, and every change is
// announced once.
#include "viz/widgets/timeline_zoom.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QSignalSpy>
#include <cmath>

namespace rammer::viz {
namespace {

TEST(TimelineZoom, ItsActionsOwnThePerfettoKeys) {
  TimelineZoom zoom;
  const std::pair<QAction*, Qt::Key> keys[] = {{zoom.zoomInAction(), Qt::Key_W},
                                               {zoom.zoomOutAction(), Qt::Key_S},
                                               {zoom.panLeftAction(), Qt::Key_A},
                                               {zoom.panRightAction(), Qt::Key_D},
                                               {zoom.fitAction(), Qt::Key_F}};
  for (const auto& [action, key] : keys) {
    ASSERT_NE(action, nullptr);
    EXPECT_EQ(action->shortcut(), QKeySequence(key)) << action->text().toStdString();
    EXPECT_EQ(zoom.actionForKey(key), action);
  }
  EXPECT_EQ(zoom.actionForKey(Qt::Key_Q), nullptr);
}

TEST(TimelineZoom, ZoomKeepsTheAnchorAndPanMovesByAFraction) {
  TimelineZoom zoom;
  zoom.setExtent(0, 1000);
  zoom.fitAll();
  EXPECT_DOUBLE_EQ(zoom.startUs(), 0);
  EXPECT_DOUBLE_EQ(zoom.endUs(), 1000);

  zoom.setAnchor([] { return 250.0; });
  zoom.zoomInAction()->trigger();
  EXPECT_DOUBLE_EQ(zoom.spanUs(), 800);
  // 250 us stays a quarter of the way across.
  EXPECT_DOUBLE_EQ((250 - zoom.startUs()) / zoom.spanUs(), 0.25);

  const double t0 = zoom.startUs();
  zoom.panRightAction()->trigger();
  EXPECT_DOUBLE_EQ(zoom.startUs(), std::min(t0 + 0.2 * 800, 1000.0 - 800));
  zoom.panLeftAction()->trigger();
  zoom.panLeftAction()->trigger();
  EXPECT_GE(zoom.startUs(), 0);

  zoom.zoomOutAction()->trigger();
  EXPECT_DOUBLE_EQ(zoom.spanUs(), 1000);  // clamped to the extent
  zoom.setVisibleRange(400, 500);
  zoom.fitAction()->trigger();
  EXPECT_DOUBLE_EQ(zoom.startUs(), 0);
  EXPECT_DOUBLE_EQ(zoom.spanUs(), 1000);
}

TEST(TimelineZoom, TheWindowStaysInsideTheExtentAndAboveItsFloor) {
  TimelineZoom zoom;
  zoom.setExtent(100, 200);
  zoom.setVisibleRange(50, 400);
  EXPECT_DOUBLE_EQ(zoom.startUs(), 100);
  EXPECT_DOUBLE_EQ(zoom.endUs(), 200);
  zoom.zoomBy(1e-12, 150);
  EXPECT_DOUBLE_EQ(zoom.spanUs(), 1e-3);  // 1 ns: the floor for a 100 us extent
  zoom.setStart(1e9);
  EXPECT_DOUBLE_EQ(zoom.endUs(), 200);
  // A later, shorter extent pulls the window in.
  zoom.setExtent(0, 10);
  EXPECT_LE(zoom.endUs(), 10);
  // Nonsense leaves it as it was; an empty extent still has a 1 us axis.
  const double span = zoom.spanUs();
  zoom.zoomBy(-1, 5);
  zoom.zoomBy(2, std::nan(""));
  EXPECT_DOUBLE_EQ(zoom.spanUs(), span);
  zoom.setExtent(5, 5);
  EXPECT_DOUBLE_EQ(zoom.extentEndUs(), 6);
}

TEST(TimelineZoom, EveryChangeIsAnnouncedWithTheNewWindow) {
  TimelineZoom zoom;
  zoom.setExtent(0, 100);
  QSignalSpy changed(&zoom, &TimelineZoom::changed);
  zoom.setVisibleRange(10, 30);
  zoom.panBy(0.5);
  ASSERT_EQ(changed.count(), 2);
  EXPECT_DOUBLE_EQ(changed.last().at(0).toDouble(), 20);
  EXPECT_DOUBLE_EQ(changed.last().at(1).toDouble(), 40);
}

}  // namespace
}  // namespace rammer::viz
