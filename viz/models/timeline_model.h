#pragma once
// What the vEU timeline shows, derived once from a sim::Trace: one lane per
// (SM, vEU), lanes grouped by SM (a folded SM: one lane for all its vEUs,
// their rTasks drawn over each other), rTasks and barrier waits indexed per lane
// for level-of-detail painting and hit testing, a colour per operator, and
// the tooltip text of any event. Programs run one after another, so they
// share one time axis; trace.programs gives the boundaries to draw.
// Qt Core only (QString), so the tests and the benchmark need no display.
#include <QString>
#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "core/sim/trace.h"
#include "viz/models/timeline_lane_index.h"

namespace rammer::viz {

struct TimelineLane {
  int32_t sm = -1;
  int32_t veu = -1;   // -1: a folded SM's lane
  int32_t veus = 1;   // vEUs drawn in it
  bool folded() const { return veu < 0; }
};

// Consecutive lanes of one SM.
struct SmGroup {
  int32_t sm = -1;
  int firstLane = 0;
  int numLanes = 0;
};

struct TimelineHit {
  enum class Kind { None, Task, Barrier };
  Kind kind = Kind::None;
  int32_t index = -1;  // into trace().tasks or trace().barriers
  explicit operator bool() const { return kind != Kind::None; }
};

class TimelineModel {
 public:
  TimelineModel();
  // `alignTo`: draw this trace in another model's rows (a measurement over
  // its prediction): events go to the lane of the same vEU there (of the
  // same SM when it is folded); vEUs it lacks get lanes of their own after
  // its lanes. `foldedSms`: SMs shown as one lane each.
  explicit TimelineModel(std::shared_ptr<const sim::Trace> trace, const TimelineModel* alignTo = nullptr,
                         std::set<int32_t> foldedSms = {});

  const sim::Trace& trace() const { return *trace_; }
  const std::shared_ptr<const sim::Trace>& sharedTrace() const { return trace_; }
  bool empty() const { return trace_->tasks.empty() && trace_->barriers.empty(); }

  int numLanes() const { return static_cast<int>(lanes_.size()); }
  const TimelineLane& lane(int lane) const { return lanes_.at(static_cast<size_t>(lane)); }
  const std::vector<TimelineLane>& lanes() const { return lanes_; }
  const std::vector<SmGroup>& smGroups() const { return groups_; }
  const std::set<int32_t>& foldedSms() const { return folded_; }
  // Every SM the trace's events run on.
  std::set<int32_t> sms() const;
  static std::set<int32_t> smsOf(const sim::Trace& trace);
  // The first lane showing `veu`, or -1.
  int laneOfVeu(int32_t veu) const;
  int laneOfTask(int32_t task) const { return laneOfTask_.at(static_cast<size_t>(task)); }
  int laneOfBarrier(int32_t barrier) const { return laneOfBarrier_.at(static_cast<size_t>(barrier)); }

  // Time extent of everything drawn (events, programs, totalUs), from <= 0.
  double startUs() const { return startUs_; }
  double endUs() const { return endUs_; }

  const TimelineLaneIndex& tasks() const { return tasks_; }
  const TimelineLaneIndex& barriers() const { return barriers_; }
  // Only the rTasks of the given ops (the selection layer).
  TimelineLaneIndex tasksOfOps(const std::vector<int32_t>& ops) const;

  int numOps() const { return static_cast<int>(opColors_.size()); }
  uint32_t opColor(int32_t op) const;  // 0xRRGGBB
  QString opName(int32_t op) const;    // the op's name, or "op N"
  QString opLabel(int32_t op) const;   // "name (Type)"

  // The event under (lane, t): an rTask or barrier containing t, else the
  // nearest one within toleranceUs (rTasks win ties).
  TimelineHit hitTest(int lane, double tUs, double toleranceUs = 0) const;

  // The instruction at `slot` of `program`, or -1.
  int32_t findTask(int32_t program, schedule::Slot slot) const;
  int32_t findBarrier(int32_t program, schedule::Slot slot) const;

  // Tooltip text: op, rTask, rKernel, program/vEU/SM, start, duration, and
  // what it waited for (the barrier in front of it, and the slot that
  // released that barrier).
  QString describeTask(int32_t task) const;
  QString describeBarrier(int32_t barrier) const;

 private:
  QString describeSlot(int32_t program, schedule::Slot slot) const;

  std::shared_ptr<const sim::Trace> trace_;
  std::vector<TimelineLane> lanes_;
  std::vector<SmGroup> groups_;
  std::vector<int32_t> laneOfTask_;
  std::vector<int32_t> laneOfBarrier_;
  std::vector<int32_t> firstLaneOfVeu_;  // by vEU index
  std::set<int32_t> folded_;
  std::vector<std::pair<int32_t, int32_t>> foldedVeuLane_;  // (vEU, lane) of folded SMs' vEUs, sorted
  // Task/barrier indices by (program, veu, order); empty when the trace is
  // already in that order (the usual case), which saves 4 bytes a task.
  std::vector<int32_t> taskBySlot_;
  std::vector<int32_t> barrierBySlot_;
  TimelineLaneIndex tasks_;
  TimelineLaneIndex barriers_;
  std::vector<uint32_t> opColors_;
  double startUs_ = 0;
  double endUs_ = 0;
};

}  // namespace rammer::viz
