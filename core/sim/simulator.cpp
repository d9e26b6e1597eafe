#include "core/sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/sim/dynamic_simulation.h"
#include "core/sim/plan_figures.h"

namespace rammer::sim {

namespace {

std::string slotText(schedule::Slot s) { return "vEU " + std::to_string(s.veu) + " order " + std::to_string(s.order); }

// Runs the programs of one plan one at a time. Its buffers are reused from
// program to program (RammerBase plans have thousands of small programs on a
// thousand vEUs) and only vEUs with work are touched. Events go straight
// into the trace, each vEU's at its own offset, so they come out sorted by
// (program, vEU, start).
class ProgramRunner {
 public:
  ProgramRunner(const schedule::Plan& plan, const CostModel& model, Trace& trace)
      : plan_(plan), model_(model), trace_(trace), sms_(std::max(1, plan.device.sms)) {
    launchUs_ = model.launchOverheadUs(plan.device);
    barrierUs_ = model.barrierOverheadUs(plan.device);
    busyOnSM_.assign(static_cast<size_t>(sms_), 0);
    aliveOnSM_.assign(static_cast<size_t>(sms_), 0);
    smBusySince_.assign(static_cast<size_t>(sms_), 0.0);
  }

  // SM-microseconds with at least one rTask running, over all programs so far.
  double busySMUs() const { return busySMUs_; }

  // Runs program `index` launched at `startUs`: its end time, or an error
  // when some vEU never reaches the end of its stream.
  ir::Result<double> run(size_t index, double startUs) {
    if (!std::isfinite(launchUs_) || launchUs_ < 0 || !std::isfinite(barrierUs_) || barrierUs_ < 0)
      return ir::makeError("the cost model gives no valid launch or barrier overhead for " + plan_.device.id);
    start(index, startUs);
    // Each step: every vEU whose instruction ends at the earliest time
    // finishes it (so a vEU that starts at that time sees them idle), then
    // each starts its next one, in vEU order.
    std::vector<int> batch;
    while (!events_.empty()) {
      const double now = events_.top().first;
      batch.clear();
      while (!events_.empty() && events_.top().first == now) {
        batch.push_back(events_.top().second);
        events_.pop();
      }
      for (int v : batch)
        if (running_[static_cast<size_t>(v)]) finish(v, now);
      for (int v : batch)
        if (auto err = advance(v, now); !err.empty()) return ir::makeError(err);
    }

    std::string stuck;
    int numStuck = 0;
    double end = startUs + launchUs_;
    for (int v : active_) {
      const auto vi = static_cast<size_t>(v);
      end = std::max(end, clock_[vi]);
      if (pc_[vi] >= length_[vi]) continue;
      if (++numStuck <= 4)
        stuck += (stuck.empty() ? "" : "; ") + slotText({v, pc_[vi]}) + " waits for " + slotText(blockedOn_[vi]);
    }
    if (numStuck > 0)
      return ir::makeError("program " + std::to_string(index_) + " deadlocks: " + std::to_string(numStuck) +
                           " vEU(s) wait at barriers that are never released: " + stuck +
                           (numStuck > 4 ? "; ..." : ""));
    return end;
  }

 private:
  // The barrier a vEU is at: when it arrived, how many of the slots it
  // waits for are still running (it is parked on each of them), and the
  // latest completion among the others.
  struct Partial {
    bool arrivedYet = false;
    double arrived = 0;
    int missing = 0;
    double latest = -1;
    schedule::Slot last;
  };

  const schedule::RProgram& program() const { return plan_.programs[static_cast<size_t>(index_)].program; }

  // Sets up the vEUs that have work (a RammerBase program may use a handful
  // of a thousand).
  void start(size_t index, double startUs) {
    index_ = static_cast<int32_t>(index);
    veusPerSM_ = plan_.programs[index].veusPerSM;
    const auto nv = static_cast<size_t>(std::max(program().numVEUs(), 0));
    if (pc_.size() < nv) {
      pc_.resize(nv);
      clock_.resize(nv);
      running_.resize(nv);
      parked_.resize(nv);
      partial_.resize(nv);
      blockedOn_.resize(nv);
      slotBase_.resize(nv);
      length_.resize(nv);
      taskNext_.resize(nv);
      barrierNext_.resize(nv);
    }
    // A launch starts with every resident region empty (gemv_cell.cuh).
    held_.assign(nv, Held{});
    // Entries of vEUs without work keep stale values; nothing reads them
    // because an empty stream has no slot to wait for.
    active_.clear();
    flat_.clear();
    size_t tasks = trace_.tasks.size(), barriers = trace_.barriers.size(), slots = 0;
    const double t0 = startUs + launchUs_;
    for (size_t vi = 0; vi < nv; ++vi) {
      const auto& s = program().streams()[vi];
      if (s.empty()) continue;
      active_.push_back(static_cast<int>(vi));
      pc_[vi] = 0;
      clock_[vi] = t0;
      running_[vi] = false;
      partial_[vi] = Partial{};
      parked_[vi].clear();
      slotBase_[vi] = slots;
      length_[vi] = static_cast<int32_t>(s.size());
      taskNext_[vi] = tasks;
      barrierNext_[vi] = barriers;
      slots += s.size();
      for (const auto& instr : s) {
        Flat f;
        if (const auto* e = std::get_if<schedule::Exec>(&instr)) {
          f.op = e->task.op;
          f.arg = e->task.rtask;
          ++tasks;
        } else {
          const auto& waits = std::get<schedule::Barrier>(instr).waits;
          f.waits = waits.data();
          f.numWaits = static_cast<int32_t>(waits.size());
          ++barriers;
        }
        flat_.push_back(f);
      }
      events_.emplace(t0, static_cast<int>(vi));
    }
    trace_.tasks.resize(tasks);
    trace_.barriers.resize(barriers);
    busyVEUs_ = 0;
    std::fill(busyOnSM_.begin(), busyOnSM_.end(), 0);
    std::fill(aliveOnSM_.begin(), aliveOnSM_.end(), 0);
    for (int v : active_) ++aliveOnSM_[static_cast<size_t>(predictedSM(v, sms_))];
  }

  // vEU v's current instruction (an rTask or a barrier wait) ends at `now`.
  void finish(int v, double now) {
    const auto vi = static_cast<size_t>(v);
    running_[vi] = false;
    if (flat_[slotBase_[vi] + static_cast<size_t>(pc_[vi])].op >= 0) {
      const auto sm = static_cast<size_t>(predictedSM(v, sms_));
      --busyVEUs_;
      if (--busyOnSM_[sm] == 0) busySMUs_ += now - smBusySince_[sm];
    }
    complete(v, now);
  }

  // Marks vEU v's current instruction complete at `now`; a barrier waiting
  // for it that has nothing else left to wait for resumes at `now`.
  void complete(int v, double now) {
    const auto vi = static_cast<size_t>(v);
    flat_[slotBase_[vi] + static_cast<size_t>(pc_[vi])].done = now;
    clock_[vi] = now;
    const int32_t order = pc_[vi]++;
    if (pc_[vi] == length_[vi]) --aliveOnSM_[static_cast<size_t>(predictedSM(v, sms_))];  // its stream ended
    auto& waiters = parked_[vi];
    if (waiters.empty()) return;
    auto woken = std::partition(waiters.begin(), waiters.end(), [&](const auto& w) { return w.first > order; });
    for (auto it = woken; it != waiters.end(); ++it) {
      Partial& part = partial_[static_cast<size_t>(it->second)];
      if (now > part.latest) part.latest = now, part.last = schedule::Slot{v, it->first};
      if (--part.missing == 0) events_.emplace(now, it->second);
    }
    waiters.erase(woken, waiters.end());
  }

  // Starts vEU v's next instructions at `now` until one takes time, a
  // barrier blocks or the stream ends; "" or an error.
  std::string advance(int v, double now) {
    const auto vi = static_cast<size_t>(v);
    if (running_[vi]) return {};  // woken twice in one step
    while (pc_[vi] < length_[vi]) {
      const int32_t pc = pc_[vi];
      const Flat& instr = flat_[slotBase_[vi] + static_cast<size_t>(pc)];
      if (instr.op >= 0) return startTask(v, pc, schedule::RTask{instr.op, instr.arg}, now);

      const schedule::Slot* waits = instr.waits;
      const schedule::Slot* waitsEnd = waits + instr.numWaits;
      Partial& part = partial_[vi];
      if (!part.arrivedYet) {
        // Arrival: park on every slot still running (on v itself: a later
        // slot, so never); count them.
        part.arrivedYet = true;
        part.arrived = now;
        for (const schedule::Slot* it = waits; it != waitsEnd; ++it) {
          const schedule::Slot w = *it;
          if (w.veu < 0 || w.veu >= program().numVEUs() || w.order < 0 ||
              static_cast<size_t>(w.order) >= program().stream(w.veu).size())
            return "program " + std::to_string(index_) + " deadlocks: the barrier at " + slotText({v, pc}) +
                   " waits for " + slotText(w) + ", which does not exist";
          const auto wi = static_cast<size_t>(w.veu);
          if (pc_[wi] <= w.order) {
            if (part.missing++ == 0) blockedOn_[vi] = w;
            parked_[wi].emplace_back(w.order, v);
            continue;
          }
          const double t = flat_[slotBase_[wi] + static_cast<size_t>(w.order)].done;
          if (t > part.latest) part.latest = t, part.last = w;
        }
      }
      if (part.missing > 0) return {};
      BarrierEvent& ev = trace_.barriers[barrierNext_[vi]++];
      ev.program = index_;
      ev.veu = v;
      ev.order = pc;
      ev.sm = predictedSM(v, sms_);
      ev.startUs = part.arrived;
      ev.endUs = instr.numWaits == 0 ? part.arrived : std::max(part.arrived, part.latest + barrierUs_);
      ev.lastSlot = part.last;
      part = Partial{};
      if (ev.endUs > now) {
        running_[vi] = true;
        events_.emplace(ev.endUs, v);
        return {};
      }
      complete(v, now);
    }
    return {};
  }

  std::string startTask(int v, int32_t pc, schedule::RTask task, double now) {
    const auto vi = static_cast<size_t>(v);
    const int32_t op = task.op;
    if (op < 0 || static_cast<size_t>(op) >= plan_.ops.size() || plan_.ops[static_cast<size_t>(op)].isView ||
        task.rtask < 0 || task.rtask >= plan_.ops[static_cast<size_t>(op)].kernel.numRTasks)
      return "program " + std::to_string(index_) + " " + slotText({v, pc}) + " runs op " + std::to_string(op) +
             " rTask " + std::to_string(task.rtask) + ", which the plan does not have";
    const int sm = predictedSM(v, sms_);
    int& onSM = busyOnSM_[static_cast<size_t>(sm)];
    const auto& k = kernelRun(v, task);
    // The vEUs of the SM neither running an rTask nor done wait at a barrier.
    const int waiting = std::max(0, aliveOnSM_[static_cast<size_t>(sm)] - (onSM + 1));
    const double us = model_.taskTimeUs(k, plan_.device, TaskContext{veusPerSM_, onSM + 1, busyVEUs_ + 1, waiting});
    if (!std::isfinite(us) || us < 0)
      return "the cost model gives no valid rTask time for rKernel '" + k.name + "' of '" +
             plan_.ops[static_cast<size_t>(op)].name + "'";
    if (onSM++ == 0) smBusySince_[static_cast<size_t>(sm)] = now;
    ++busyVEUs_;
    TaskEvent& ev = trace_.tasks[taskNext_[vi]++];
    ev.task = task;
    ev.program = index_;
    ev.veu = v;
    ev.order = pc;
    ev.sm = sm;
    ev.startUs = now;
    ev.endUs = now + us;
    running_[vi] = true;
    events_.emplace(ev.endUs, v);
    return {};
  }

  // The rKernel as rTask `task` runs it on vEU `v`: a persistent cell's
  // `bytes` count a step that finds its weight slice resident; one that
  // finds another slice (or none) also reads its own (residentReadBytes).
  const kernels::RKernel& kernelRun(int v, schedule::RTask task) {
    const auto& k = plan_.ops[static_cast<size_t>(task.op)].kernel;
    if (k.residentBytes <= 0) return k;
    Held& h = held_[static_cast<size_t>(v)];
    // Every step's cell of one layer is its own operator: the value, not the op, names the slice.
    const bool found = h.rtask == task.rtask && h.tasks == k.numRTasks && h.value &&
                       (h.value == &k.residentValue || *h.value == k.residentValue);
    h = Held{&k.residentValue, task.rtask, k.numRTasks};
    if (found) return k;
    auto [it, added] = loading_.try_emplace(task.op);
    if (added) {
      it->second = k;
      it->second.bytes += k.residentReadBytes;
    }
    return it->second;
  }
  struct Held {
    const std::string* value = nullptr;  // the slice a vEU's resident region holds
    int64_t rtask = -1;
    int64_t tasks = 0;  // of an rKernel of that many rTasks (the j8 and j32 twins slice differently)
  };

  const schedule::Plan& plan_;
  const CostModel& model_;
  Trace& trace_;
  std::vector<Held> held_;                       // per vEU
  std::map<int32_t, kernels::RKernel> loading_;  // per persistent-cell op: its rKernel when it loads its slice
  const int sms_;
  double launchUs_ = 0;
  double barrierUs_ = 0;

  // The program being run.
  int32_t index_ = -1;
  int veusPerSM_ = 0;
  int busyVEUs_ = 0;                 // vEUs running an rTask now
  std::vector<int> busyOnSM_;        // the same per SM
  std::vector<int> aliveOnSM_;       // per SM, vEUs whose streams have not ended
  std::vector<double> smBusySince_;  // when each SM's count last went from 0 to 1
  double busySMUs_ = 0;
  using Event = std::pair<double, int>;  // (time, vEU): the vEU's current instruction ends, or it is woken
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<int32_t> pc_;    // current instruction per vEU
  std::vector<double> clock_;  // when each vEU completed its last instruction
  std::vector<char> running_;  // its current instruction is in progress (an event is queued)
  // The program's instructions, each vEU's in order from slotBase_[v]: the
  // time-ordered walk over vEUs touches this compact copy, not the plan's
  // per-vEU vectors of variants.
  struct Flat {
    int64_t arg = 0;                        // rTask id
    const schedule::Slot* waits = nullptr;  // a barrier's slots (in the plan)
    int32_t op = -1;                        // op index; -1: a barrier
    int32_t numWaits = 0;
    double done = 0;  // completion time
  };
  std::vector<Flat> flat_;
  std::vector<size_t> slotBase_;                              // first slot of each vEU in flat_
  std::vector<int32_t> length_;                               // instructions per vEU
  std::vector<size_t> taskNext_;                              // where each vEU's next TaskEvent goes in the trace
  std::vector<size_t> barrierNext_;                           // where its next BarrierEvent goes
  std::vector<std::vector<std::pair<int32_t, int>>> parked_;  // per vEU u: (order of u awaited, waiting vEU)
  std::vector<Partial> partial_;
  std::vector<schedule::Slot> blockedOn_;  // the slot each vEU last parked on, for the deadlock message
  std::vector<int> active_;                // vEUs with a non-empty stream
};

}  // namespace

Simulator::Simulator(std::shared_ptr<const CostModel> model) : model_(std::move(model)) {}

ir::Result<Trace> Simulator::run(const schedule::Plan& plan) const {
  Trace trace = traceOf(plan, "predicted: " + model_->name(), false, plan.device.sms);
  const PlanFigures figures = figuresOf(plan);
  trace.tasks.reserve(figures.rtasks);
  trace.barriers.reserve(figures.barriers);

  ProgramRunner runner(plan, *model_, trace);
  double now = 0;
  bool dynamic = false;
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    dynamic = dynamic || plan.programs[p].dynamic;
    auto end = plan.programs[p].dynamic ? simulateDynamicProgram(plan, p, *model_, now, trace) : runner.run(p, now);
    if (!end) return end.errors();
    ProgramEvent pe;
    pe.program = static_cast<int32_t>(p);
    pe.numVEUs = plan.programs[p].program.numVEUs();
    pe.veusPerSM = plan.programs[p].veusPerSM;
    pe.startUs = now;
    pe.endUs = *end;
    trace.programs.push_back(pe);
    now = *end;
  }
  trace.totalUs = now;
  // The union of each SM's rTask intervals, accumulated while simulating
  // (the same as computeSmEfficiency(trace.tasks, ...) without a sort).
  trace.smEfficiency =
      trace.sms > 0 && trace.totalUs > 0 ? std::clamp(runner.busySMUs() / (trace.sms * trace.totalUs), 0.0, 1.0) : 0.0;
  // Dynamic programs keep no running union: measure it from their events.
  if (dynamic) trace.smEfficiency = computeSmEfficiency(trace.tasks, trace.sms, trace.totalUs);

  double taskUs = 0, barrierWaitUs = 0;
  for (const auto& t : trace.tasks) taskUs += t.endUs - t.startUs;
  for (const auto& b : trace.barriers) barrierWaitUs += b.endUs - b.startUs;
  trace.metrics["rtasks"] = static_cast<double>(trace.tasks.size());
  trace.metrics["barriers"] = static_cast<double>(trace.barriers.size());
  trace.metrics["programs"] = static_cast<double>(trace.programs.size());
  trace.metrics["launch_overhead_us"] =
      model_->launchOverheadUs(plan.device) * static_cast<double>(plan.programs.size());
  trace.metrics["barrier_wait_veu_us"] = barrierWaitUs;
  trace.metrics["rtask_veu_us"] = taskUs;
  if (dynamic) {
    size_t dispatches = 0;
    for (const auto& p : plan.programs)
      if (p.dynamic) dispatches += static_cast<size_t>(p.dynamic->numRTasks());
    trace.metrics["dispatches"] = static_cast<double>(dispatches);
    trace.metrics["dispatch_veu_us"] = static_cast<double>(dispatches) * model_->dispatchOverheadUs(plan.device);
  }
  return trace;
}

double computeSmEfficiency(const std::vector<TaskEvent>& tasks, int sms, double totalUs) {
  if (sms <= 0 || totalUs <= 0) return 0;
  std::vector<std::vector<std::pair<double, double>>> perSM(static_cast<size_t>(sms));
  std::vector<size_t> counts(static_cast<size_t>(sms), 0);
  for (const auto& t : tasks)
    if (t.sm >= 0 && t.sm < sms) ++counts[static_cast<size_t>(t.sm)];
  for (size_t i = 0; i < perSM.size(); ++i) perSM[i].reserve(counts[i]);
  for (const auto& t : tasks)
    if (t.sm >= 0 && t.sm < sms && t.endUs > t.startUs)
      perSM[static_cast<size_t>(t.sm)].emplace_back(t.startUs, t.endUs);
  double busy = 0;
  for (auto& iv : perSM) {
    std::sort(iv.begin(), iv.end());
    double curStart = 0, curEnd = -1;
    for (const auto& [s, e] : iv) {
      if (s > curEnd) {
        if (curEnd > curStart) busy += curEnd - curStart;
        curStart = s, curEnd = e;
      } else {
        curEnd = std::max(curEnd, e);
      }
    }
    if (curEnd > curStart) busy += curEnd - curStart;
  }
  return std::clamp(busy / (static_cast<double>(sms) * totalUs), 0.0, 1.0);
}

}  // namespace rammer::sim
