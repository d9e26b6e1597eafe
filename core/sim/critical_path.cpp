#include "core/sim/critical_path.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace rammer::sim {

namespace {

// Measured clocks tick in whole nanoseconds: a consumer may appear to start
// a hair before its producer's end.
constexpr double kEpsUs = 1e-3;

}  // namespace

CriticalPath criticalPath(const schedule::Plan& plan, const Trace& trace) {
  CriticalPath path;
  const std::vector<TaskEvent>& tasks = trace.tasks;
  if (tasks.empty()) return path;

  // Which trace operators feed which, by name: a measured trace of the
  // same model may number its operators otherwise than this plan.
  std::map<std::string, int32_t> traceOp;
  for (size_t i = 0; i < trace.opNames.size(); ++i) traceOp.emplace(trace.opNames[i], static_cast<int32_t>(i));
  std::vector<std::vector<int32_t>> producers(trace.opNames.size());
  for (const schedule::PlannedOp& op : plan.ops) {
    auto consumer = traceOp.find(op.name);
    if (consumer == traceOp.end()) continue;
    for (int32_t p : op.producers)
      if (auto it = traceOp.find(plan.ops.at(static_cast<size_t>(p)).name); it != traceOp.end())
        producers[static_cast<size_t>(consumer->second)].push_back(it->second);
  }

  std::vector<std::vector<size_t>> byOp(trace.opNames.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto op = static_cast<size_t>(tasks[i].task.op);
    if (op < byOp.size()) byOp[op].push_back(i);
  }
  // The rTask before each on its vEU's stream (none: SIZE_MAX).
  std::vector<size_t> stream(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) stream[i] = i;
  std::sort(stream.begin(), stream.end(), [&](size_t a, size_t b) {
    return std::tie(tasks[a].program, tasks[a].veu, tasks[a].order, tasks[a].startUs) <
           std::tie(tasks[b].program, tasks[b].veu, tasks[b].order, tasks[b].startUs);
  });
  std::vector<size_t> before(tasks.size(), SIZE_MAX);
  for (size_t k = 1; k < stream.size(); ++k) {
    const TaskEvent& a = tasks[stream[k - 1]];
    const TaskEvent& b = tasks[stream[k]];
    if (a.program == b.program && a.veu == b.veu) before[stream[k]] = stream[k - 1];
  }
  // Where each program's first rTask started: its launch done.
  std::map<int32_t, double> programStart, firstStart;
  for (const ProgramEvent& p : trace.programs) programStart[p.program] = p.startUs;
  for (const TaskEvent& t : tasks) {
    auto [it, fresh] = firstStart.try_emplace(t.program, t.startUs);
    if (!fresh) it->second = std::min(it->second, t.startUs);
  }

  size_t cur = 0;
  for (size_t i = 1; i < tasks.size(); ++i)
    if (tasks[i].endUs > tasks[cur].endUs) cur = i;
  path.lengthUs = tasks[cur].endUs;

  std::set<int32_t> ops;
  std::vector<bool> seen(tasks.size(), false);
  while (true) {
    seen[cur] = true;
    const TaskEvent& c = tasks[cur];
    ops.insert(c.task.op);
    // The producer rTask that finished last before c started.
    size_t producer = SIZE_MAX;
    const auto op = static_cast<size_t>(c.task.op);
    if (op < producers.size())
      for (int32_t p : producers[op])
        if (static_cast<size_t>(p) < byOp.size())
          for (size_t j : byOp[static_cast<size_t>(p)]) {
            const TaskEvent& t = tasks[j];
            if (seen[j] || t.program > c.program || t.endUs > c.startUs + kEpsUs) continue;
            if (producer == SIZE_MAX || t.endUs > tasks[producer].endUs) producer = j;
          }
    CriticalLink link;
    link.task = cur;
    double readyUs = producer == SIZE_MAX ? 0.0 : std::min(tasks[producer].endUs, c.startUs);
    const bool sameProgram = producer != SIZE_MAX && tasks[producer].program == c.program;
    if (!sameProgram) {  // the path crosses a launch: until c's program ran its first rTask
      link.launchUs = std::clamp(firstStart[c.program] - readyUs, 0.0, c.startUs - readyUs);
      readyUs += link.launchUs;
    }
    // c's vEU free of other work: its rTask before c ended (a barrier
    // between them that waited for someone else's data counts too).
    double freeUs = programStart.count(c.program) ? programStart[c.program] : 0.0;
    if (before[cur] != SIZE_MAX) freeUs = tasks[before[cur]].endUs;
    link.queueUs = std::clamp(freeUs - readyUs, 0.0, c.startUs - readyUs);
    const double rest = c.startUs - readyUs - link.queueUs;
    if (sameProgram) {
      link.handoffUs = rest;
      link.handoff = true;
      ++path.handoffs;
    } else {
      link.launchUs += rest;
    }
    if (link.queueUs > kEpsUs) ++path.queued;
    path.computeUs += c.endUs - c.startUs;
    path.handoffUs += link.handoffUs;
    path.queueUs += link.queueUs;
    path.launchUs += link.launchUs;
    path.links.push_back(link);
    if (producer == SIZE_MAX) break;
    cur = producer;
  }
  std::reverse(path.links.begin(), path.links.end());
  path.operators = ops.size();
  return path;
}

double CriticalPath::handoffQuantileUs(double q) const {
  std::vector<double> us;
  for (const CriticalLink& l : links)
    if (l.handoff) us.push_back(l.handoffUs);
  if (us.empty()) return 0.0;
  std::sort(us.begin(), us.end());
  const auto rank = static_cast<size_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(us.size())));
  return us[std::max<size_t>(rank, 1) - 1];
}

}  // namespace rammer::sim
