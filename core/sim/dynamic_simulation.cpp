#include "core/sim/dynamic_simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>

namespace rammer::sim {

ir::Result<double> simulateDynamicProgram(const schedule::Plan& plan, size_t program, const CostModel& model,
                                          double startUs, Trace& trace) {
  const schedule::ProgramInfo& info = plan.programs.at(program);
  if (!info.dynamic) return ir::makeError("program " + std::to_string(program) + " is not dynamic");
  const schedule::DynamicProgram& dp = *info.dynamic;
  const double launchUs = model.launchOverheadUs(plan.device), dispatchUs = model.dispatchOverheadUs(plan.device),
               handoffUs = model.queueHandoffUs(plan.device);
  for (const double us : {launchUs, dispatchUs, handoffUs})
    if (!std::isfinite(us) || us < 0)
      return ir::makeError("the cost model gives no valid launch, dispatch or queue hand-off overhead for " +
                           plan.device.id);
  const int veus = info.program.numVEUs(), sms = std::max(1, plan.device.sms);
  if (veus <= 0) return ir::makeError("dynamic program " + std::to_string(program) + " has no vEUs");
  const double t0 = startUs + launchUs;

  // Free vEUs by the time they free up; running rTasks by their end.
  using Free = std::pair<double, int>;
  std::priority_queue<Free, std::vector<Free>, std::greater<>> free;
  for (int v = 0; v < veus; ++v) free.emplace(t0, v);
  struct Finish {
    double at;
    int32_t dop;  // index into dp.ops
    int sm;
    bool operator>(const Finish& o) const { return at > o.at; }
  };
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> running;
  std::vector<int64_t> gate(dp.ops.size()), claimed(dp.ops.size(), 0);
  for (size_t i = 0; i < dp.ops.size(); ++i) gate[i] = dp.ops[i].gate;
  // The ring: operators with unclaimed rTasks, in arrival order, each with
  // the time a vEU waiting on its entry sees it (the push is a release
  // store that the vEU's acquire poll sees a barrier hand-off later).
  std::deque<std::pair<int32_t, double>> ready;
  for (int32_t i : dp.initial)
    if (dp.ops[static_cast<size_t>(i)].rtasks > 0) ready.emplace_back(i, t0);
  std::vector<int> onSM(static_cast<size_t>(sms), 0), orderOf(static_cast<size_t>(veus), 0);
  int busy = 0;
  int64_t left = dp.numRTasks();
  const size_t first = trace.tasks.size();
  double end = t0;

  // The rTasks ending by `t`: their SMs free up, their consumers' gates go
  // down (release), and the operators they open join the ring's tail.
  auto complete = [&](double t) {
    while (!running.empty() && running.top().at <= t) {
      const Finish f = running.top();
      running.pop();
      --onSM[static_cast<size_t>(f.sm)];
      --busy;
      for (int32_t c : dp.ops[static_cast<size_t>(f.dop)].consumers)
        if (--gate[static_cast<size_t>(c)] == 0 && dp.ops[static_cast<size_t>(c)].rtasks > 0)
          ready.emplace_back(c, f.at + handoffUs);
    }
  };
  while (left > 0) {
    auto [t, v] = free.top();
    free.pop();
    complete(t);
    if (ready.empty()) {
      if (running.empty()) break;         // nothing running can open a gate: stuck
      free.emplace(running.top().at, v);  // idle until the next rTask ends
      continue;
    }
    if (ready.front().second > t) {  // pushed, not yet seen: later entries are later still
      free.emplace(ready.front().second, v);
      continue;
    }
    const int32_t dop = ready.front().first;
    const schedule::DynamicOp& d = dp.ops[static_cast<size_t>(dop)];
    const int64_t r = claimed[static_cast<size_t>(dop)]++;
    if (claimed[static_cast<size_t>(dop)] == d.rtasks) ready.pop_front();
    const auto& k = plan.ops.at(static_cast<size_t>(d.op)).kernel;
    const int sm = predictedSM(v, sms);
    const double start = t + dispatchUs;
    const double us =
        model.taskTimeUs(k, plan.device, TaskContext{info.veusPerSM, onSM[static_cast<size_t>(sm)] + 1, busy + 1, 0});
    if (!std::isfinite(us) || us < 0)
      return ir::makeError("the cost model gives no valid rTask time for rKernel '" + k.name + "' of '" +
                           plan.ops[static_cast<size_t>(d.op)].name + "'");
    ++onSM[static_cast<size_t>(sm)];
    ++busy;
    TaskEvent ev;
    ev.task = schedule::RTask{d.op, r};
    ev.program = static_cast<int32_t>(program);
    ev.veu = v;
    ev.order = orderOf[static_cast<size_t>(v)]++;
    ev.sm = sm;
    ev.startUs = start;
    ev.endUs = start + us;
    trace.tasks.push_back(ev);
    running.push(Finish{ev.endUs, dop, sm});
    free.emplace(ev.endUs, v);
    end = std::max(end, ev.endUs);
    --left;
  }
  if (left > 0) {
    std::string never;
    int count = 0;
    for (size_t i = 0; i < dp.ops.size(); ++i)
      if (claimed[i] < dp.ops[i].rtasks && ++count <= 4)
        never += (never.empty() ? "'" : ", '") + plan.ops.at(static_cast<size_t>(dp.ops[i].op)).name + "'";
    return ir::makeError("dynamic program " + std::to_string(program) + " stalls: the gates of " +
                         std::to_string(count) + " operator(s) never open (" + never + (count > 4 ? ", ..." : "") +
                         "): their producer counts exceed the rTasks that can finish");
  }
  std::sort(
      trace.tasks.begin() + static_cast<std::ptrdiff_t>(first), trace.tasks.end(),
      [](const TaskEvent& a, const TaskEvent& b) { return a.veu != b.veu ? a.veu < b.veu : a.startUs < b.startUs; });
  return end;
}

}  // namespace rammer::sim
