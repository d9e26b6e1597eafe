#include "core/schedule/critical_order.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace rammer::schedule {

namespace {

// One operator of the program, by its first placement.
struct OpState {
  int32_t op = -1;
  double taskUs = 0;
  double bottomUs = 0;  // the longest estimated path from its start to the program's end
  std::vector<size_t> deps, consumers;
  size_t depsLeft = 0;
  int64_t left = 0;      // rTasks not yet ordered
  double readyUs = 0;    // its producers' last end plus the hand-off
  double finishUs = 0;   // its last rTask's end so far
};

// An operator's rTasks on one vEU, in the policy's order.
struct Pending {
  size_t op = 0;
  std::vector<RTask> tasks;
  size_t next = 0;
};

}  // namespace

double estimatedMakespanUs(const OrderProblem& problem, const std::vector<std::pair<RTask, int>>& order) {
  std::unordered_map<int32_t, double> opEnd, opReady;
  std::vector<double> freeUs(static_cast<size_t>(problem.numVEUs), 0.0);
  double makespan = 0;
  for (const auto& [t, v] : order) {
    // Once per operator: its producers have all run before its first rTask
    // (greedy's stage barriers give operators hundreds of them).
    auto [at, fresh] = opReady.try_emplace(t.op, 0.0);
    if (fresh)
      for (int32_t d : problem.deps(t.op))
        if (auto it = opEnd.find(d); it != opEnd.end()) at->second = std::max(at->second, it->second + problem.handoffUs);
    const double ready = at->second;
    double& f = freeUs[static_cast<size_t>(v)];
    f = std::max(f, ready) + problem.taskUs(t.op);
    double& e = opEnd[t.op];
    e = std::max(e, f);
    makespan = std::max(makespan, f);
  }
  return makespan;
}

std::vector<std::pair<RTask, int>> listScheduleOrder(const OrderProblem& problem) {
  const std::vector<std::pair<RTask, int>>& placed = problem.placements;
  std::vector<OpState> ops;
  std::unordered_map<int32_t, size_t> local;
  // pending[v]: per operator with rTasks on v.
  std::vector<std::vector<Pending>> pending(static_cast<size_t>(problem.numVEUs));
  std::vector<std::unordered_map<size_t, size_t>> pendingAt(static_cast<size_t>(problem.numVEUs));
  for (const auto& [t, v] : placed) {
    auto [it, fresh] = local.try_emplace(t.op, ops.size());
    if (fresh) {
      ops.push_back({});
      ops.back().op = t.op;
    }
    const size_t o = it->second;
    ++ops[o].left;
    auto& at = pendingAt[static_cast<size_t>(v)];
    auto [p, first] = at.try_emplace(o, pending[static_cast<size_t>(v)].size());
    if (first) pending[static_cast<size_t>(v)].push_back({o, {}, 0});
    pending[static_cast<size_t>(v)][p->second].tasks.push_back(t);
  }
  for (OpState& s : ops) {
    s.taskUs = problem.taskUs(s.op);
    for (int32_t d : problem.deps(s.op))
      if (auto it = local.find(d); it != local.end()) s.deps.push_back(it->second);
    s.depsLeft = s.deps.size();
  }
  for (size_t o = 0; o < ops.size(); ++o)
    for (size_t d : ops[o].deps) ops[d].consumers.push_back(o);

  // Bottom levels in reverse topological order (Kahn's, from the sinks).
  std::vector<size_t> outLeft(ops.size()), queue;
  for (size_t o = 0; o < ops.size(); ++o)
    if ((outLeft[o] = ops[o].consumers.size()) == 0) queue.push_back(o);
  for (size_t k = 0; k < queue.size(); ++k) {
    OpState& s = ops[queue[k]];
    double below = 0;
    for (size_t c : s.consumers) below = std::max(below, problem.handoffUs + ops[c].bottomUs);
    s.bottomUs = s.taskUs + below;
    for (size_t d : s.deps)
      if (--outLeft[d] == 0) queue.push_back(d);
  }
  if (queue.size() != ops.size()) return placed;  // a cycle: no order to improve on

  // The list schedule. released[v]: indices into pending[v] whose operator
  // may run; active: vEUs with released work, by when they free.
  std::vector<double> freeUs(static_cast<size_t>(problem.numVEUs), 0.0);
  std::vector<std::vector<size_t>> released(static_cast<size_t>(problem.numVEUs));
  std::set<std::pair<double, int>> active;
  // v's key in `active`, when it is there (-1: not).
  std::vector<double> wakeUs(static_cast<size_t>(problem.numVEUs), -1.0);
  auto wake = [&](int v, double at) {
    double& key = wakeUs[static_cast<size_t>(v)];
    if (key >= 0) active.erase({key, v});
    key = at;
    active.emplace(at, v);
  };
  auto release = [&](size_t o) {
    for (int v = 0; v < problem.numVEUs; ++v) {
      auto it = pendingAt[static_cast<size_t>(v)].find(o);
      if (it == pendingAt[static_cast<size_t>(v)].end()) continue;
      auto& r = released[static_cast<size_t>(v)];
      // An idle vEU wakes when the new rTask is ready, if that is sooner.
      const double at = std::max(freeUs[static_cast<size_t>(v)], ops[o].readyUs);
      const double key = wakeUs[static_cast<size_t>(v)];
      if (r.empty() || (key >= 0 && at < key)) wake(v, at);
      r.push_back(it->second);
    }
  };
  for (size_t o = 0; o < ops.size(); ++o)
    if (ops[o].depsLeft == 0) release(o);

  std::vector<std::pair<RTask, int>> order;
  order.reserve(placed.size());
  while (!active.empty()) {
    // Copied out: clang 15 lets no lambda capture a structured binding.
    const double now = active.begin()->first;
    const int v = active.begin()->second;
    active.erase(active.begin());
    wakeUs[static_cast<size_t>(v)] = -1;
    auto& r = released[static_cast<size_t>(v)];
    auto& pend = pending[static_cast<size_t>(v)];
    // The most critical: the rTask whose chain would end last if it went
    // next (it may not be ready yet: the vEU then keeps itself free for
    // it). Ties: the policy's order.
    auto chainEnd = [&](size_t k) {
      const OpState& s = ops[pend[r[k]].op];
      return std::max(now, s.readyUs) + s.bottomUs;
    };
    size_t best = 0;
    for (size_t k = 1; k < r.size(); ++k)
      if (chainEnd(k) > chainEnd(best) || (chainEnd(k) == chainEnd(best) && pend[r[k]].op < pend[r[best]].op))
        best = k;
    if (const double ready = ops[pend[r[best]].op].readyUs; ready > now) {
      // A ready rTask that ends before then fills the gap; else the vEU
      // idles until then, and the vEUs that free sooner go first (they may
      // release something more urgent).
      size_t fill = r.size();
      for (size_t k = 0; k < r.size(); ++k) {
        const OpState& s = ops[pend[r[k]].op];
        if (s.readyUs > now || now + s.taskUs > ready) continue;
        if (fill == r.size() || s.bottomUs > ops[pend[r[fill]].op].bottomUs) fill = k;
      }
      if (fill == r.size()) {
        wake(v, ready);
        continue;
      }
      best = fill;
    }
    Pending& p = pend[r[best]];
    OpState& s = ops[p.op];
    const double end = std::max(now, s.readyUs) + s.taskUs;
    order.emplace_back(p.tasks[p.next++], v);
    freeUs[static_cast<size_t>(v)] = end;
    s.finishUs = std::max(s.finishUs, end);
    if (p.next == p.tasks.size()) r.erase(r.begin() + static_cast<std::ptrdiff_t>(best));
    if (--s.left == 0)
      for (size_t c : s.consumers) {
        OpState& cs = ops[c];
        cs.readyUs = std::max(cs.readyUs, s.finishUs + problem.handoffUs);
        if (--cs.depsLeft == 0) release(c);
      }
    if (!r.empty()) wake(v, end);
  }
  if (order.size() != placed.size()) return placed;  // unreachable with a DAG; keep the policy's order
  return order;
}

std::vector<std::pair<RTask, int>> criticalPathOrder(const OrderProblem& problem) {
  // A list schedule is a heuristic: where the vEUs are busy anyway (a
  // throughput-bound program), the policy's order can be the faster one.
  std::vector<std::pair<RTask, int>> order = listScheduleOrder(problem);
  if (estimatedMakespanUs(problem, order) < estimatedMakespanUs(problem, problem.placements)) return order;
  return problem.placements;
}

}  // namespace rammer::schedule
