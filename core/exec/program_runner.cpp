#include "core/exec/program_runner.h"

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <system_error>
#include <thread>
#include <variant>

namespace rammer::exec {

namespace {

using Clock = std::chrono::steady_clock;

// Blocked workers poll by yielding for a while (barrier waits are usually
// short), then sleep briefly so that more threads than cores still share.
constexpr auto kSpinBeforeSleep = std::chrono::microseconds(200);
constexpr auto kIdleSleep = std::chrono::microseconds(50);
constexpr auto kProgressPeriod = std::chrono::milliseconds(50);
constexpr size_t kDeadlockVEUsNamed = 4;

std::string taskName(const schedule::Plan& plan, schedule::RTask t) {
  return plan.ops[static_cast<size_t>(t.op)].name + "[" + std::to_string(t.rtask) + "]";
}

}  // namespace

ProgramRunner::ProgramRunner(const schedule::Plan& plan, const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                             BufferArena& arena, const EmulatorOptions& options, int threads)
    : plan_(plan), arena_(arena), options_(options), threads_(threads), detector_(threads),
      tiles_(plan, graph, inputs) {
  size_t maxVEUs = 1;
  for (const auto& p : plan.programs) maxVEUs = std::max(maxVEUs, static_cast<size_t>(p.program.numVEUs()));
  steps_ = std::make_unique<Step[]>(maxVEUs);

  // Split-K outputs are zeroed once, before the first program that runs
  // any of the op's rTasks (buffers are never reused, so once is enough).
  zeroBefore_.resize(plan.programs.size());
  std::vector<bool> zeroed(plan.ops.size(), false);
  for (size_t p = 0; p < plan.programs.size(); ++p)
    for (int32_t op : schedule::opsOfProgram(plan, p))
      if (plan.ops[static_cast<size_t>(op)].kernel.zeroOutputsFirst && !zeroed[static_cast<size_t>(op)]) {
        zeroed[static_cast<size_t>(op)] = true;
        zeroBefore_[p].push_back(op);
      }

  // One scratch per worker, not per vEU: a worker runs one rTask at a time
  // and rKernels keep nothing in shared memory from one rTask to the next.
  // NaN-filled so an rKernel that reads shared memory it never wrote shows.
  int64_t shared = 0;
  for (const auto& op : plan.ops) shared = std::max(shared, op.kernel.sharedBytes);
  scratch_.assign(static_cast<size_t>(threads),
                  std::vector<float>(static_cast<size_t>(shared) / sizeof(float) + 1,
                                     std::numeric_limits<float>::quiet_NaN()));
  events_.resize(static_cast<size_t>(threads));
  programs_.resize(plan.programs.size());
}

double ProgramRunner::nowUs() const {
  return std::chrono::duration<double, std::micro>(Clock::now() - start_).count();
}

void ProgramRunner::fail(std::string message, std::string node) {
  {
    std::lock_guard lock(errorMutex_);
    if (!error_) error_ = ir::makeError(std::move(message), std::move(node));
  }
  abort_.store(true, std::memory_order_release);
}

bool ProgramRunner::stopping() {
  if (abort_.load(std::memory_order_relaxed)) return true;
  if (options_.cancel && options_.cancel->load(std::memory_order_relaxed)) {
    fail("cancelled");
    return true;
  }
  return false;
}

void ProgramRunner::prepare(size_t program) {
  const schedule::RProgram& prog = plan_.programs[program].program;
  for (int v = 0; v < prog.numVEUs(); ++v) steps_[static_cast<size_t>(v)].done.store(0, std::memory_order_relaxed);
  detector_.reset();
  for (int32_t op : zeroBefore_[program]) arena_.zeroOutputs(op);
  if (options_.trace) {
    doneUs_.assign(static_cast<size_t>(prog.numVEUs()), {});
    for (int v = 0; v < prog.numVEUs(); ++v) doneUs_[static_cast<size_t>(v)].assign(prog.stream(v).size(), 0.0);
  }
  if (const auto& dp = plan_.programs[program].dynamic) {
    DynamicState& d = dynamic_;
    d.ready.clear();
    for (int32_t i : dp->initial)
      if (dp->ops[static_cast<size_t>(i)].rtasks > 0) d.ready.push_back(i);
    d.gate.resize(dp->ops.size());
    for (size_t i = 0; i < dp->ops.size(); ++i) d.gate[i] = dp->ops[i].gate;
    d.claimed.assign(dp->ops.size(), 0);
    d.left = dp->numRTasks();
    d.inFlight = 0;
  }
  sim::ProgramEvent& pe = programs_[program];
  pe.program = static_cast<int32_t>(program);
  pe.numVEUs = prog.numVEUs();
  pe.veusPerSM = plan_.programs[program].veusPerSM;
  pe.startUs = nowUs();
}

void ProgramRunner::endPhase() noexcept {
  programs_[program_].endUs = nowUs();
  if (abort_.load(std::memory_order_acquire) || program_ + 1 >= plan_.programs.size()) {
    stop_ = true;
    return;
  }
  ++program_;
  prepare(program_);
}

bool ProgramRunner::released(const schedule::Barrier& b, schedule::Slot* blocking) const {
  for (const schedule::Slot& s : b.waits)
    if (steps_[static_cast<size_t>(s.veu)].done.load(std::memory_order_acquire) <= s.order) {
      *blocking = s;
      return false;
    }
  return true;
}

bool ProgramRunner::runTask(int w, schedule::RTask task) {
  const schedule::PlannedOp& op = plan_.ops[static_cast<size_t>(task.op)];
  try {
    if (op.kernel.cpu)
      op.kernel.cpu(task.rtask, arena_.buffers(task.op), scratch_[static_cast<size_t>(w)].data());
    else
      tiles_.run(task.op, task.rtask, arena_.buffers(task.op));
  } catch (const std::exception& e) {
    fail("rKernel " + op.kernel.name + " failed on " + taskName(plan_, task) + ": " + e.what(), op.name);
    return false;
  } catch (...) {
    fail("rKernel " + op.kernel.name + " failed on " + taskName(plan_, task), op.name);
    return false;
  }
  tiles_.finished(task.op);
  tasksDone_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void ProgramRunner::runDynamic(int w) {
  const size_t program = program_;
  const schedule::DynamicProgram& dp = *plan_.programs[program].dynamic;
  if (w >= plan_.programs[program].program.numVEUs()) return;  // more workers than vEUs
  DynamicState& d = dynamic_;
  WorkerEvents& events = events_[static_cast<size_t>(w)];
  int32_t order = 0;
  for (;;) {
    int32_t entry = -1;
    int64_t rtask = 0;
    {
      std::unique_lock lock(d.mutex);
      while (d.ready.empty() && d.left > 0) {
        if (d.inFlight == 0) {  // nothing runs that could open a gate
          lock.unlock();
          fail("dynamic program " + std::to_string(program) + " stalls: " + std::to_string(d.left) +
               " rTasks wait behind gates that no running rTask will open");
          d.changed.notify_all();
          return;
        }
        d.changed.wait_for(lock, kIdleSleep);
        if (stopping()) return;
      }
      if (d.left == 0 || stopping()) return;
      entry = d.ready.front();
      rtask = d.claimed[static_cast<size_t>(entry)]++;
      if (d.claimed[static_cast<size_t>(entry)] == dp.ops[static_cast<size_t>(entry)].rtasks) d.ready.pop_front();
      ++d.inFlight;
    }
    const schedule::RTask task{dp.ops[static_cast<size_t>(entry)].op, rtask};
    const double startUs = options_.trace ? nowUs() : 0;
    if (!runTask(w, task)) {
      d.changed.notify_all();
      return;
    }
    if (options_.trace)
      events.tasks.push_back(sim::TaskEvent{task, static_cast<int32_t>(program), w, order++,
                                            sim::predictedSM(w, plan_.device.sms), startUs, nowUs()});
    {
      std::lock_guard lock(d.mutex);
      --d.inFlight;
      --d.left;
      for (int32_t c : dp.ops[static_cast<size_t>(entry)].consumers)
        if (--d.gate[static_cast<size_t>(c)] == 0 && dp.ops[static_cast<size_t>(c)].rtasks > 0) d.ready.push_back(c);
    }
    d.changed.notify_all();
  }
}

void ProgramRunner::runProgram(int w) {
  const size_t program = program_;
  if (plan_.programs[program].dynamic) {
    runDynamic(w);
    return;
  }
  const schedule::RProgram& prog = plan_.programs[program].program;
  std::vector<int32_t> mine;
  for (int v = w; v < prog.numVEUs(); v += threads_) mine.push_back(v);
  std::vector<int32_t> pc(mine.size(), 0);
  std::vector<double> blockedSince(mine.size(), -1.0);
  WorkerEvents& events = events_[static_cast<size_t>(w)];
  const bool trace = options_.trace;
  const int sms = plan_.device.sms;

  uint64_t reported = std::numeric_limits<uint64_t>::max();
  Clock::time_point idleSince;
  bool idle = false;
  for (;;) {
    if (stopping()) return;
    const uint64_t seen = detector_.epoch();
    bool progressed = false;
    bool allDone = true;
    for (size_t k = 0; k < mine.size(); ++k) {
      const int32_t v = mine[k];
      const auto& stream = prog.stream(v);
      while (static_cast<size_t>(pc[k]) < stream.size()) {
        const int32_t order = pc[k];
        const schedule::Instr& instr = stream[static_cast<size_t>(order)];
        double endUs = 0;
        if (const auto* e = std::get_if<schedule::Exec>(&instr)) {
          const double startUs = trace ? nowUs() : 0;
          if (!runTask(w, e->task)) return;
          if (trace) {
            endUs = nowUs();
            events.tasks.push_back(sim::TaskEvent{e->task, static_cast<int32_t>(program), v, order,
                                                  sim::predictedSM(v, sms), startUs, endUs});
          }
        } else {
          const auto& barrier = std::get<schedule::Barrier>(instr);
          schedule::Slot blocking;
          if (!released(barrier, &blocking)) {
            if (trace && blockedSince[k] < 0) blockedSince[k] = nowUs();
            break;
          }
          if (trace) {
            endUs = nowUs();
            // The slot that completed last is the one the barrier really waited for.
            schedule::Slot last = barrier.waits.empty() ? schedule::Slot{} : barrier.waits.front();
            for (const schedule::Slot& s : barrier.waits)
              if (doneUs_[static_cast<size_t>(s.veu)][static_cast<size_t>(s.order)] >
                  doneUs_[static_cast<size_t>(last.veu)][static_cast<size_t>(last.order)])
                last = s;
            events.barriers.push_back(sim::BarrierEvent{static_cast<int32_t>(program), v, order,
                                                        sim::predictedSM(v, sms),
                                                        blockedSince[k] < 0 ? endUs : blockedSince[k], endUs, last});
            blockedSince[k] = -1;
          }
        }
        if (trace) doneUs_[static_cast<size_t>(v)][static_cast<size_t>(order)] = endUs;
        pc[k] = order + 1;
        steps_[static_cast<size_t>(v)].done.store(order + 1, std::memory_order_release);
        progressed = true;
        if (stopping()) return;
      }
      if (static_cast<size_t>(pc[k]) < stream.size()) allDone = false;
    }
    if (progressed) {
      detector_.noteProgress();
      idle = false;
      continue;
    }
    if (allDone) {
      if (detector_.finished(w)) reportDeadlock(program);
      return;
    }
    // Nothing ran: every vEU left is at a barrier that is not released.
    if (detector_.epoch() == seen && reported != seen) {
      reported = seen;
      if (detector_.stalled(w, seen)) {
        reportDeadlock(program);
        return;
      }
    }
    if (!idle) {
      idle = true;
      idleSince = Clock::now();
    }
    if (Clock::now() - idleSince < kSpinBeforeSleep)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(kIdleSleep);
  }
}

void ProgramRunner::reportDeadlock(size_t program) {
  // Every worker is stuck, so the step counters no longer change.
  const schedule::RProgram& prog = plan_.programs[program].program;
  std::string waits;
  size_t stuck = 0;
  for (int v = 0; v < prog.numVEUs(); ++v) {
    const auto& stream = prog.stream(v);
    const int32_t at = steps_[static_cast<size_t>(v)].done.load(std::memory_order_acquire);
    if (static_cast<size_t>(at) >= stream.size()) continue;
    if (++stuck > kDeadlockVEUsNamed) continue;
    const auto* barrier = std::get_if<schedule::Barrier>(&stream[static_cast<size_t>(at)]);
    schedule::Slot blocking;
    if (!barrier || released(*barrier, &blocking)) continue;  // cannot happen when stuck; keep the report honest
    std::string next;
    for (size_t o = static_cast<size_t>(at) + 1; o < stream.size() && next.empty(); ++o)
      if (const auto* e = std::get_if<schedule::Exec>(&stream[o])) next = " (before " + taskName(plan_, e->task) + ")";
    const int32_t other = steps_[static_cast<size_t>(blocking.veu)].done.load(std::memory_order_acquire);
    waits += "; vEU " + std::to_string(v) + " waits at order " + std::to_string(at) + next + " for vEU " +
             std::to_string(blocking.veu) + " order " + std::to_string(blocking.order) + ", which vEU " +
             std::to_string(blocking.veu) + " cannot reach (it is stuck at order " + std::to_string(other) + ")";
  }
  if (stuck > kDeadlockVEUsNamed)
    waits += "; and " + std::to_string(stuck - kDeadlockVEUsNamed) + " more vEUs wait";
  fail("deadlock in program " + std::to_string(program) + ": no vEU can make progress" + waits);
}

void ProgramRunner::worker(int w, std::barrier<PhaseEnd>& phase) {
  for (;;) {
    if (!stop_) runProgram(w);
    phase.arrive_and_wait();
    if (stop_) return;
  }
}

std::optional<ir::Diagnostic> ProgramRunner::run() {
  start_ = Clock::now();
  if (plan_.programs.empty()) return std::nullopt;
  prepare(0);

  std::mutex exitMutex;
  std::condition_variable exited;
  int running = 0;
  std::barrier<PhaseEnd> phase(threads_, PhaseEnd{this});
  std::vector<std::thread> workers;
  for (int w = 0; w < threads_; ++w) {
    {
      std::lock_guard lock(exitMutex);
      ++running;
    }
    try {
      workers.emplace_back([this, w, &phase, &exitMutex, &exited, &running] {
        worker(w, phase);
        std::lock_guard lock(exitMutex);
        --running;
        exited.notify_all();
      });
    } catch (const std::system_error& e) {
      {
        std::lock_guard lock(exitMutex);
        --running;
      }
      fail(std::string("cannot start an emulator worker thread: ") + e.what());
      // The started workers see the abort; the missing ones leave the barrier.
      for (int missing = w; missing < threads_; ++missing) phase.arrive_and_drop();
      break;
    }
  }

  // The calling thread only reports progress and forwards cancellation.
  const size_t total = plan_.numRTasks();
  size_t reported = 0;
  bool reportedAny = false;
  {
    std::unique_lock lock(exitMutex);
    while (running > 0) {
      exited.wait_for(lock, kProgressPeriod);
      const size_t done = tasksDone_.load(std::memory_order_relaxed);
      if (options_.progress && running > 0 && done != reported) {
        lock.unlock();
        options_.progress(done, total);
        reported = done, reportedAny = true;
        lock.lock();
      }
    }
  }
  for (std::thread& t : workers) t.join();
  if (options_.progress && (!reportedAny || tasksDone_.load() != reported)) options_.progress(tasksDone_.load(), total);
  return error_;
}

sim::Trace ProgramRunner::trace() {
  return assembleEmulatedTrace(plan_, std::move(events_), programs_, threads_);
}

}  // namespace rammer::exec
