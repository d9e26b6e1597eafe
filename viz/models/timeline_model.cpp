#include "viz/models/timeline_model.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

#include "viz/models/timeline_palette.h"
#include "viz/models/timeline_time_axis.h"

namespace rammer::viz {

namespace {

using LaneKey = std::pair<int32_t, int32_t>;  // (sm, veu): lanes sort by SM, then vEU

// Measured traces carry %smid; a prediction may leave it out.
int32_t smOf(int32_t sm, int32_t veu, int sms) {
  if (sm >= 0) return sm;
  return sms > 0 && veu >= 0 ? sim::predictedSM(veu, sms) : -1;
}

template <class Event>
bool slotLess(const Event& a, const Event& b) {
  if (a.program != b.program) return a.program < b.program;
  if (a.veu != b.veu) return a.veu < b.veu;
  return a.order < b.order;
}

// Indices of `events` in (program, veu, order) order; empty if already so.
template <class Event>
std::vector<int32_t> slotOrder(const std::vector<Event>& events) {
  if (std::is_sorted(events.begin(), events.end(), slotLess<Event>)) return {};
  std::vector<int32_t> order(events.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return slotLess(events[static_cast<size_t>(a)], events[static_cast<size_t>(b)]); });
  return order;
}

template <class Event>
int32_t findSlot(const std::vector<Event>& events, const std::vector<int32_t>& bySlot, int32_t program,
                 schedule::Slot slot) {
  Event probe;
  probe.program = program;
  probe.veu = slot.veu;
  probe.order = slot.order;
  auto at = [&](size_t k) -> const Event& { return events[bySlot.empty() ? k : static_cast<size_t>(bySlot[k])]; };
  size_t lo = 0;
  size_t hi = events.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (slotLess(at(mid), probe)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == events.size()) return -1;
  const Event& e = at(lo);
  if (e.program != program || e.veu != slot.veu || e.order != slot.order) return -1;
  return static_cast<int32_t>(bySlot.empty() ? lo : static_cast<size_t>(bySlot[lo]));
}

QString microseconds(double us) { return QStringLiteral("%1 µs").arg(us, 0, 'f', 3); }

}  // namespace

TimelineModel::TimelineModel() : trace_(std::make_shared<sim::Trace>()) {}

TimelineModel::TimelineModel(std::shared_ptr<const sim::Trace> trace, const TimelineModel* alignTo,
                             std::set<int32_t> foldedSms)
    : trace_(trace ? std::move(trace) : std::make_shared<sim::Trace>()), folded_(std::move(foldedSms)) {
  const sim::Trace& t = *trace_;
  // A folded SM's vEUs share the lane (sm, -1).
  auto keyOf = [&](int32_t sm, int32_t veu) {
    const int32_t s = smOf(sm, veu, t.sms);
    return LaneKey{s, folded_.count(s) ? -1 : veu};
  };

  // Lanes: those of `alignTo` (matched by vEU) first, then one per (SM, vEU)
  // pair not placed yet.
  std::vector<std::pair<int32_t, int32_t>> veuLane;  // (veu, lane) from alignTo, sorted
  if (alignTo) {
    lanes_ = alignTo->lanes_;
    for (int l = 0; l < alignTo->numLanes(); ++l) veuLane.emplace_back(lanes_[static_cast<size_t>(l)].veu, l);
    std::stable_sort(veuLane.begin(), veuLane.end(), [](auto& a, auto& b) { return a.first < b.first; });
  }
  std::map<int32_t, int32_t> alignedFoldedLane;  // sm -> the other model's lane for it, when it folds it too
  if (alignTo)
    for (int l = 0; l < alignTo->numLanes(); ++l)
      if (alignTo->lanes_[static_cast<size_t>(l)].folded()) alignedFoldedLane.emplace(alignTo->lanes_[static_cast<size_t>(l)].sm, l);
  auto alignedLane = [&](int32_t sm, int32_t veu) -> int32_t {
    const LaneKey key = keyOf(sm, veu);
    if (key.second < 0) {
      auto it = alignedFoldedLane.find(key.first);
      return it == alignedFoldedLane.end() ? -1 : it->second;
    }
    auto it = std::lower_bound(veuLane.begin(), veuLane.end(), std::make_pair(veu, std::numeric_limits<int32_t>::min()));
    return it != veuLane.end() && it->first == veu ? it->second : -1;
  };
  std::vector<LaneKey> keys;
  std::map<int32_t, std::set<int32_t>> veusOfFoldedSm;
  auto collect = [&](const auto& events) {
    for (const auto& e : events) {
      const LaneKey key = keyOf(e.sm, e.veu);
      if (key.second < 0) veusOfFoldedSm[key.first].insert(e.veu);
      if (alignedLane(e.sm, e.veu) >= 0) continue;
      if (keys.empty() || keys.back() != key) keys.push_back(key);  // events come grouped by vEU
    }
  };
  collect(t.tasks);
  collect(t.barriers);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const auto firstNew = static_cast<int32_t>(lanes_.size());
  for (const LaneKey& k : keys) {
    const auto folded = veusOfFoldedSm.find(k.first);
    const int32_t veus = k.second < 0 && folded != veusOfFoldedSm.end() ? static_cast<int32_t>(folded->second.size()) : 1;
    lanes_.push_back({k.first, k.second, veus});
  }

  auto laneFor = [&](int32_t sm, int32_t veu) -> int32_t {
    if (const int32_t a = alignedLane(sm, veu); a >= 0) return a;
    auto it = std::lower_bound(keys.begin(), keys.end(), keyOf(sm, veu));
    return firstNew + static_cast<int32_t>(it - keys.begin());
  };
  for (const auto& [sm, veus] : veusOfFoldedSm)
    for (int32_t veu : veus) foldedVeuLane_.emplace_back(veu, laneFor(sm, veu));
  std::sort(foldedVeuLane_.begin(), foldedVeuLane_.end());

  startUs_ = 0;
  endUs_ = std::isfinite(t.totalUs) ? std::max(0.0, t.totalUs) : 0.0;
  auto extend = [&](double s, double e) {  // malformed (non-finite) times are not drawn
    if (std::isfinite(s)) startUs_ = std::min(startUs_, s);
    if (std::isfinite(e)) endUs_ = std::max(endUs_, e);
  };
  std::vector<LaneInterval> intervals;
  intervals.reserve(t.tasks.size());
  laneOfTask_.resize(t.tasks.size());
  for (size_t i = 0; i < t.tasks.size(); ++i) {
    const sim::TaskEvent& e = t.tasks[i];
    const int32_t lane = laneFor(e.sm, e.veu);
    laneOfTask_[i] = lane;
    intervals.push_back({e.startUs, e.endUs, lane, e.task.op, static_cast<int32_t>(i)});
    extend(e.startUs, e.endUs);
  }
  tasks_ = TimelineLaneIndex(numLanes(), std::move(intervals));

  intervals.clear();
  laneOfBarrier_.resize(t.barriers.size());
  for (size_t i = 0; i < t.barriers.size(); ++i) {
    const sim::BarrierEvent& e = t.barriers[i];
    const int32_t lane = laneFor(e.sm, e.veu);
    laneOfBarrier_[i] = lane;
    intervals.push_back({e.startUs, e.endUs, lane, -1, static_cast<int32_t>(i)});
    extend(e.startUs, e.endUs);
  }
  barriers_ = TimelineLaneIndex(numLanes(), std::move(intervals));
  for (const sim::ProgramEvent& p : t.programs) {
    extend(p.startUs, p.endUs);
  }

  for (int l = 0; l < numLanes(); ++l) {
    const int32_t sm = lanes_[static_cast<size_t>(l)].sm;
    if (groups_.empty() || groups_.back().sm != sm) groups_.push_back({sm, l, 0});
    ++groups_.back().numLanes;
  }
  for (int l = 0; l < numLanes(); ++l) firstLaneOfVeu_.push_back(l);
  std::stable_sort(firstLaneOfVeu_.begin(), firstLaneOfVeu_.end(), [&](int32_t a, int32_t b) {
    return lanes_[static_cast<size_t>(a)].veu < lanes_[static_cast<size_t>(b)].veu;
  });

  taskBySlot_ = slotOrder(t.tasks);
  barrierBySlot_ = slotOrder(t.barriers);

  opColors_.reserve(t.opNames.size());
  for (size_t op = 0; op < t.opNames.size(); ++op) opColors_.push_back(viz::opColor(opName(static_cast<int32_t>(op)).toStdString()));
}

std::set<int32_t> TimelineModel::sms() const {
  std::set<int32_t> out;
  for (const SmGroup& g : groups_) out.insert(g.sm);
  return out;
}

std::set<int32_t> TimelineModel::smsOf(const sim::Trace& trace) {
  std::set<int32_t> out;
  for (const auto& e : trace.tasks) out.insert(smOf(e.sm, e.veu, trace.sms));
  for (const auto& e : trace.barriers) out.insert(smOf(e.sm, e.veu, trace.sms));
  return out;
}

int TimelineModel::laneOfVeu(int32_t veu) const {
  auto folded = std::lower_bound(foldedVeuLane_.begin(), foldedVeuLane_.end(), std::make_pair(veu, -1));
  if (folded != foldedVeuLane_.end() && folded->first == veu) return folded->second;
  auto it = std::lower_bound(firstLaneOfVeu_.begin(), firstLaneOfVeu_.end(), veu,
                             [&](int32_t lane, int32_t v) { return lanes_[static_cast<size_t>(lane)].veu < v; });
  return it != firstLaneOfVeu_.end() && lanes_[static_cast<size_t>(*it)].veu == veu ? *it : -1;
}

TimelineLaneIndex TimelineModel::tasksOfOps(const std::vector<int32_t>& ops) const {
  const auto& tasks = trace_->tasks;
  std::vector<int32_t> wanted(ops.begin(), ops.end());
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::vector<LaneInterval> intervals;
  if (!wanted.empty()) {
    for (size_t i = 0; i < tasks.size(); ++i) {
      const sim::TaskEvent& e = tasks[i];
      if (std::binary_search(wanted.begin(), wanted.end(), e.task.op)) {
        intervals.push_back({e.startUs, e.endUs, laneOfTask_[i], e.task.op, static_cast<int32_t>(i)});
      }
    }
  }
  return TimelineLaneIndex(numLanes(), std::move(intervals));
}

uint32_t TimelineModel::opColor(int32_t op) const {
  if (op >= 0 && static_cast<size_t>(op) < opColors_.size()) return opColors_[static_cast<size_t>(op)];
  return viz::opColor(opName(op).toStdString());
}

QString TimelineModel::opName(int32_t op) const {
  const auto& names = trace_->opNames;
  if (op >= 0 && static_cast<size_t>(op) < names.size() && !names[static_cast<size_t>(op)].empty()) {
    return QString::fromStdString(names[static_cast<size_t>(op)]);
  }
  return QStringLiteral("op %1").arg(op);
}

QString TimelineModel::opLabel(int32_t op) const {
  const auto& types = trace_->opTypes;
  if (op >= 0 && static_cast<size_t>(op) < types.size() && !types[static_cast<size_t>(op)].empty()) {
    return QStringLiteral("%1 (%2)").arg(opName(op), QString::fromStdString(types[static_cast<size_t>(op)]));
  }
  return opName(op);
}

TimelineHit TimelineModel::hitTest(int lane, double tUs, double toleranceUs) const {
  using Kind = TimelineHit::Kind;
  if (int32_t i = tasks_.hit(lane, tUs); i >= 0) return {Kind::Task, i};
  if (int32_t i = barriers_.hit(lane, tUs); i >= 0) return {Kind::Barrier, i};
  if (toleranceUs > 0) {
    if (int32_t i = tasks_.hit(lane, tUs, toleranceUs); i >= 0) return {Kind::Task, i};
    if (int32_t i = barriers_.hit(lane, tUs, toleranceUs); i >= 0) return {Kind::Barrier, i};
  }
  return {};
}

int32_t TimelineModel::findTask(int32_t program, schedule::Slot slot) const {
  return findSlot(trace_->tasks, taskBySlot_, program, slot);
}

int32_t TimelineModel::findBarrier(int32_t program, schedule::Slot slot) const {
  return findSlot(trace_->barriers, barrierBySlot_, program, slot);
}

QString TimelineModel::describeSlot(int32_t program, schedule::Slot slot) const {
  if (const int32_t t = findTask(program, slot); t >= 0) {
    const sim::TaskEvent& e = trace_->tasks[static_cast<size_t>(t)];
    return QStringLiteral("%1 rTask %2 on vEU %3 (#%4, ended %5)")
        .arg(opLabel(e.task.op))
        .arg(e.task.rtask)
        .arg(slot.veu)
        .arg(slot.order)
        .arg(microseconds(e.endUs));
  }
  if (findBarrier(program, slot) >= 0) return QStringLiteral("a barrier on vEU %1 (#%2)").arg(slot.veu).arg(slot.order);
  return QStringLiteral("vEU %1 #%2").arg(slot.veu).arg(slot.order);
}

QString TimelineModel::describeTask(int32_t task) const {
  if (task < 0 || static_cast<size_t>(task) >= trace_->tasks.size()) return {};
  const sim::TaskEvent& e = trace_->tasks[static_cast<size_t>(task)];
  const auto& kernels = trace_->kernelNames;
  const int32_t op = e.task.op;
  QStringList lines;
  lines << QStringLiteral("op: %1").arg(opLabel(op));
  lines << QStringLiteral("rTask: %1").arg(e.task.rtask);
  if (op >= 0 && static_cast<size_t>(op) < kernels.size() && !kernels[static_cast<size_t>(op)].empty()) {
    lines << QStringLiteral("rKernel: %1").arg(QString::fromStdString(kernels[static_cast<size_t>(op)]));
  }
  lines << QStringLiteral("program %1 · vEU %2 · SM %3 · #%4")
               .arg(e.program)
               .arg(e.veu)
               .arg(smOf(e.sm, e.veu, trace_->sms))
               .arg(e.order);
  lines << QStringLiteral("start: %1").arg(microseconds(e.startUs));
  lines << QStringLiteral("duration: %1").arg(formatDuration(e.endUs - e.startUs));
  // The barrier in front of it on its vEU is what it waited for.
  const int32_t b = findBarrier(e.program, {e.veu, e.order - 1});
  if (b >= 0) {
    const sim::BarrierEvent& w = trace_->barriers[static_cast<size_t>(b)];
    lines << QStringLiteral("waited %1 for: %2")
                 .arg(formatDuration(w.endUs - w.startUs), describeSlot(w.program, w.lastSlot));
  } else if (e.order > 0) {
    lines << QStringLiteral("waited for: only the previous instruction on its vEU");
  } else {
    lines << QStringLiteral("waited for: the program start");
  }
  return lines.join(QLatin1Char('\n'));
}

QString TimelineModel::describeBarrier(int32_t barrier) const {
  if (barrier < 0 || static_cast<size_t>(barrier) >= trace_->barriers.size()) return {};
  const sim::BarrierEvent& w = trace_->barriers[static_cast<size_t>(barrier)];
  QStringList lines;
  lines << QStringLiteral("barrier wait");
  lines << QStringLiteral("program %1 · vEU %2 · SM %3 · #%4")
               .arg(w.program)
               .arg(w.veu)
               .arg(smOf(w.sm, w.veu, trace_->sms))
               .arg(w.order);
  lines << QStringLiteral("start: %1").arg(microseconds(w.startUs));
  lines << QStringLiteral("duration: %1").arg(formatDuration(w.endUs - w.startUs));
  if (w.lastSlot.veu >= 0) lines << QStringLiteral("waited for: %1").arg(describeSlot(w.program, w.lastSlot));
  return lines.join(QLatin1Char('\n'));
}

}  // namespace rammer::viz
