#include "core/sim/trace_summary.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/sim/simulator.h"

namespace rammer::sim {

namespace {

// The part of [s, e) inside [lo, hi); 0 when none.
double overlap(double s, double e, double lo, double hi) { return std::max(0.0, std::min(e, hi) - std::max(s, lo)); }

// Overlaps the window (a zero-length event counts when it lies inside it).
bool touches(double s, double e, double lo, double hi) { return s < hi && (e > lo || (s == e && s >= lo)); }

}  // namespace

TraceSummary summarizeTrace(const Trace& trace, double startUs, double endUs, const std::vector<int32_t>& veus) {
  TraceSummary s;
  s.startUs = startUs;
  s.endUs = std::max(startUs, endUs);
  const std::set<int32_t> lanes(veus.begin(), veus.end());
  auto selected = [&](int32_t veu) { return lanes.empty() || lanes.count(veu) != 0; };

  std::map<int32_t, OpSummary> ops;
  std::vector<TaskEvent> clipped;
  for (const auto& t : trace.tasks) {
    if (!selected(t.veu) || !touches(t.startUs, t.endUs, s.startUs, s.endUs)) continue;
    ++s.rtasks;
    const double busy = overlap(t.startUs, t.endUs, s.startUs, s.endUs);
    s.busyVeuUs += busy;
    OpSummary& o = ops[t.task.op];
    if (o.rtasks++ == 0) {
      o.op = t.task.op;
      o.firstStartUs = t.startUs;
      o.lastEndUs = t.endUs;
    }
    o.firstStartUs = std::min(o.firstStartUs, t.startUs);
    o.lastEndUs = std::max(o.lastEndUs, t.endUs);
    o.busyVeuUs += busy;
    TaskEvent c = t;
    c.startUs = std::max(t.startUs, s.startUs) - s.startUs;
    c.endUs = std::min(t.endUs, s.endUs) - s.startUs;
    clipped.push_back(c);
  }
  for (const auto& b : trace.barriers) {
    if (!selected(b.veu) || !touches(b.startUs, b.endUs, s.startUs, s.endUs)) continue;
    ++s.barriers;
    s.barrierWaitVeuUs += overlap(b.startUs, b.endUs, s.startUs, s.endUs);
  }
  s.smEfficiency = computeSmEfficiency(clipped, trace.sms, s.endUs - s.startUs);

  for (auto& [op, o] : ops) {
    const auto i = static_cast<size_t>(op);
    if (op >= 0 && i < trace.opNames.size()) o.name = trace.opNames[i];
    if (op >= 0 && i < trace.opTypes.size()) o.type = trace.opTypes[i];
    if (op >= 0 && i < trace.kernelNames.size()) o.kernel = trace.kernelNames[i];
    s.ops.push_back(std::move(o));
  }
  std::stable_sort(s.ops.begin(), s.ops.end(),
                   [](const OpSummary& a, const OpSummary& b) { return a.busyVeuUs > b.busyVeuUs; });
  return s;
}

}  // namespace rammer::sim
