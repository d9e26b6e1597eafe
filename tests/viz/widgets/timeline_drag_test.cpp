// A timeline drag: a press becomes a drag only past the click slop, and a
// dropped rTask lands after the rTasks of its program that start earlier.
#include "viz/widgets/timeline_drag.h"

#include <gtest/gtest.h>

namespace rammer::viz {
namespace {

sim::TaskEvent event(int op, int64_t rtask, int veu, double start) {
  sim::TaskEvent e;
  e.task = {op, rtask};
  e.program = 0;
  e.veu = veu;
  e.startUs = start;
  e.endUs = start + 1;
  return e;
}

TEST(TimelineDrag, ADroppedRTaskLandsAfterTheRTasksThatStartEarlier) {
  sim::Trace t;
  // vEU 0: a0 a1 b0; vEU 1: b1 b2 (op a = 0, op b = 1).
  t.tasks = {event(0, 0, 0, 0), event(0, 1, 0, 1), event(1, 0, 0, 2), event(1, 1, 1, 0), event(1, 2, 1, 1)};
  // a1 dropped on vEU 1 between b1 and b2.
  EXPECT_EQ(taskDropOrder(t, 1, 1, 0.5, false), 1);
  // ... at the end of vEU 1.
  EXPECT_EQ(taskDropOrder(t, 1, 1, 9, false), 2);
  // Back where it was: no move.
  EXPECT_EQ(taskDropOrder(t, 1, 0, 0.5, false), std::nullopt);
  // Its whole operator onto vEU 0 at the end: b0 counts, a0 (moving too) not.
  EXPECT_EQ(taskDropOrder(t, 1, 0, 9, true), 1);
  EXPECT_EQ(taskDropOrder(t, 7, 0, 0, false), std::nullopt);  // no such rTask
}

TEST(TimelineDrag, APressBecomesADragOnlyPastTheSlop) {
  TimelineDrag d;
  d.press(QPoint(10, 10), 0, 0, TimelineDrag::Kind::Pending, 3, false);
  d.moved(QPoint(11, 11));
  EXPECT_EQ(d.kind, TimelineDrag::Kind::Pending);
  d.moved(QPoint(20, 10));
  EXPECT_EQ(d.kind, TimelineDrag::Kind::Task);  // pressed on an rTask
  d.press(QPoint(10, 10), 0, 0, TimelineDrag::Kind::Pending, -1, false);
  d.moved(QPoint(30, 10));
  EXPECT_EQ(d.kind, TimelineDrag::Kind::Pan);
  d.reset();
  EXPECT_EQ(d.kind, TimelineDrag::Kind::None);
  EXPECT_EQ(d.pressedTask, -1);
}

}  // namespace
}  // namespace rammer::viz
