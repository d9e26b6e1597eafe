#include "viz/widgets/timeline_drag.h"

namespace rammer::viz {

void TimelineDrag::press(const QPoint& pos, double t0Us, int scrollY, Kind initial, int32_t task, bool alt) {
  kind = initial;
  start = pos;
  startT0Us = t0Us;
  startScrollY = scrollY;
  pressedTask = initial == Kind::Pending ? task : -1;
  pressedAlt = alt;
  drop.reset();
}

void TimelineDrag::moved(const QPoint& pos) {
  if (kind == Kind::Pending && (pos - start).manhattanLength() > kClickSlop)
    kind = pressedTask >= 0 ? Kind::Task : Kind::Pan;
}

void TimelineDrag::reset() {
  kind = Kind::None;
  pressedTask = -1;
  drop.reset();
}

std::optional<int> taskDropOrder(const sim::Trace& trace, int32_t moved, int targetVeu, double atUs,
                                 bool wholeOperator) {
  const auto& events = trace.tasks;
  if (moved < 0 || static_cast<size_t>(moved) >= events.size()) return std::nullopt;
  const sim::TaskEvent& m = events[static_cast<size_t>(moved)];
  // TaskPin orders count rTasks (not barriers) on the vEU of that program.
  int order = 0;
  int ownOrder = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const sim::TaskEvent& e = events[i];
    if (e.program != m.program || i == static_cast<size_t>(moved)) continue;
    if (e.veu == m.veu && e.startUs < m.startUs) ++ownOrder;
    if (e.veu != targetVeu || (wholeOperator && e.task.op == m.task.op)) continue;
    if (e.startUs < atUs) ++order;
  }
  if (!wholeOperator && targetVeu == m.veu && order == ownOrder) return std::nullopt;  // dropped where it was
  return order;
}

}  // namespace rammer::viz
