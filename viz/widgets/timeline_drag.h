#pragma once
// What a mouse drag in the timeline is doing: undecided until it moves a
// few pixels, then panning, selecting an area (Shift), or moving an rTask
// of the main trace (pressed on one; Alt: its whole operator). A moved
// rTask is only proposed: taskDropOrder says where it would land, the
// editor decides whether the move is applied.
#include <QPoint>
#include <cstdint>
#include <optional>

#include "core/sim/trace.h"

namespace rammer::viz {

struct TimelineDrag {
  enum class Kind { None, Pending, Pan, Area, Task };
  // Pixels a press may move and still be a click.
  static constexpr int kClickSlop = 3;

  struct DropTarget {
    int lane = -1;
    int veu = -1;
    int x = 0;  // viewport x of the drop point
  };

  Kind kind = Kind::None;
  QPoint start;
  double startT0Us = 0;  // the visible window's start when pressed
  int startScrollY = 0;
  int32_t pressedTask = -1;  // main-trace rTask under the press (trace().tasks index)
  bool pressedAlt = false;
  std::optional<DropTarget> drop;  // while moving an rTask

  // A press at `pos` on rTask `task` (-1: none).
  void press(const QPoint& pos, double t0Us, int scrollY, Kind initial, int32_t task, bool alt);
  // Decides what a pending drag is once the mouse moved past the slop.
  void moved(const QPoint& pos);
  void reset();
};

// Where rTask `moved` (an index into trace.tasks) lands when dropped on vEU
// `targetVeu` at time `atUs`: the TaskPin order (rTasks of its program on
// that vEU that start earlier, the moved ones excluded). nullopt when it
// would land where it already is. `wholeOperator`: every rTask of its
// operator moves.
std::optional<int> taskDropOrder(const sim::Trace& trace, int32_t moved, int targetVeu, double atUs,
                                 bool wholeOperator);

}  // namespace rammer::viz
