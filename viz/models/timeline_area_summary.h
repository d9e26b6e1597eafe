#pragma once
// The summary of an area selection in the timeline: time [t0, t1) across a
// range of lanes. "Busy" is lane-time covered by at least one rTask (per
// lane, the union of its rTasks, so a malformed overlap is not counted
// twice); "idle" is the rest of the lane-time, barrier waits included (they
// are also reported on their own); per-op time is each op's rTask time
// inside the area.
#include <QString>
#include <cstdint>
#include <vector>

namespace rammer::viz {

class TimelineModel;

struct OpTime {
  int32_t op = -1;
  double us = 0;      // rTask time inside the area, clipped to it
  int64_t tasks = 0;  // rTasks of the op overlapping the area
};

struct AreaSummary {
  double t0Us = 0;
  double t1Us = 0;
  int firstLane = 0;
  int lastLane = -1;  // inclusive
  int lanes = 0;
  double laneTimeUs = 0;  // lanes x (t1 - t0)
  double busyUs = 0;
  double idleUs = 0;
  double barrierWaitUs = 0;
  double busyFraction = 0;  // busy / laneTime, 0 for an empty area
  int64_t tasks = 0;
  std::vector<OpTime> perOp;  // most time first (ties: lower op first)
};

// Lanes are clamped to the model's; t0 > t1 are swapped.
AreaSummary summarizeArea(const TimelineModel& model, double t0Us, double t1Us, int firstLane, int lastLane);

// A few lines for a status bar or tooltip; lists the `maxOps` biggest ops.
QString formatAreaSummary(const AreaSummary& summary, const TimelineModel& model, int maxOps = 5);

}  // namespace rammer::viz
