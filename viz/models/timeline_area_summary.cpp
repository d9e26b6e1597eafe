#include "viz/models/timeline_area_summary.h"

#include <QStringList>
#include <algorithm>
#include <map>
#include <utility>

#include "viz/models/timeline_model.h"
#include "viz/models/timeline_time_axis.h"

namespace rammer::viz {

namespace {

// Time of [start, end) inside [t0, t1); 0 when disjoint.
double clipped(double start, double end, double t0, double t1) {
  return std::max(0.0, std::min(end, t1) - std::max(start, t0));
}

// Union length of a lane's intervals (sorted by start) clipped to [t0, t1).
double unionLength(const TimelineLaneIndex& index, std::pair<size_t, size_t> range, double t0, double t1) {
  double total = 0;
  double coveredTo = t0;  // everything before this is already counted
  for (size_t p = range.first; p < range.second; ++p) {
    const double s = std::max(index.start(p), coveredTo);
    const double e = std::min(index.end(p), t1);
    if (e > s) {
      total += e - s;
      coveredTo = e;
    }
  }
  return total;
}

}  // namespace

AreaSummary summarizeArea(const TimelineModel& model, double t0Us, double t1Us, int firstLane, int lastLane) {
  AreaSummary s;
  if (t0Us > t1Us) std::swap(t0Us, t1Us);
  if (firstLane > lastLane) std::swap(firstLane, lastLane);
  firstLane = std::max(firstLane, 0);
  lastLane = std::min(lastLane, model.numLanes() - 1);
  s.t0Us = t0Us;
  s.t1Us = t1Us;
  s.firstLane = firstLane;
  s.lastLane = lastLane;
  s.lanes = std::max(0, lastLane - firstLane + 1);
  s.laneTimeUs = s.lanes * (t1Us - t0Us);
  if (s.lanes == 0 || !(t1Us > t0Us)) return s;

  std::map<int32_t, OpTime> perOp;
  const TimelineLaneIndex& tasks = model.tasks();
  const TimelineLaneIndex& barriers = model.barriers();
  for (int lane = firstLane; lane <= lastLane; ++lane) {
    const auto range = tasks.overlapping(lane, t0Us, t1Us);
    for (size_t p = range.first; p < range.second; ++p) {
      // overlapping() may include a non-overlapping neighbour of a long
      // interval in a malformed lane; count only real overlaps.
      if (!(tasks.end(p) > t0Us && tasks.start(p) < t1Us)) continue;
      OpTime& ot = perOp[tasks.op(p)];
      ot.op = tasks.op(p);
      ot.us += clipped(tasks.start(p), tasks.end(p), t0Us, t1Us);
      ++ot.tasks;
      ++s.tasks;
    }
    s.busyUs += unionLength(tasks, range, t0Us, t1Us);
    s.barrierWaitUs += unionLength(barriers, barriers.overlapping(lane, t0Us, t1Us), t0Us, t1Us);
  }
  s.idleUs = std::max(0.0, s.laneTimeUs - s.busyUs);
  s.busyFraction = s.busyUs / s.laneTimeUs;
  for (auto& [op, ot] : perOp) s.perOp.push_back(ot);
  std::stable_sort(s.perOp.begin(), s.perOp.end(), [](const OpTime& a, const OpTime& b) { return a.us > b.us; });
  return s;
}

QString formatAreaSummary(const AreaSummary& s, const TimelineModel& model, int maxOps) {
  QStringList lines;
  lines << QStringLiteral("%1 × %2 lane%3")
               .arg(formatDuration(s.t1Us - s.t0Us))
               .arg(s.lanes)
               .arg(s.lanes == 1 ? QString() : QStringLiteral("s"));
  lines << QStringLiteral("busy %1% · idle %2 · barrier wait %3 · %4 rTasks")
               .arg(100.0 * s.busyFraction, 0, 'f', 1)
               .arg(formatDuration(s.idleUs))
               .arg(formatDuration(s.barrierWaitUs))
               .arg(s.tasks);
  const int shown = std::min<int>(maxOps, static_cast<int>(s.perOp.size()));
  for (int k = 0; k < shown; ++k) {
    const OpTime& ot = s.perOp[static_cast<size_t>(k)];
    lines << QStringLiteral("  %1: %2 (%3 rTasks)").arg(model.opLabel(ot.op), formatDuration(ot.us)).arg(ot.tasks);
  }
  if (shown < static_cast<int>(s.perOp.size())) {
    lines << QStringLiteral("  … %1 more ops").arg(static_cast<int>(s.perOp.size()) - shown);
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace rammer::viz
