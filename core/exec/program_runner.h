#pragma once
// The worker pool behind the CPU emulator (see plan_emulator.h): runs a
// plan's rPrograms one after another on T threads. Per program, worker w
// owns vEUs w, w+T, w+2T, ... and round-robins among them, running each
// until it finishes or reaches a barrier whose slots are not all complete.
// Completion is published through one atomic step counter per vEU (the
// number of its instructions done, stored with release); a barrier polls
// them with acquire loads, which also makes the producer's output writes
// visible to the consumer rTasks behind the barrier. A dynamic program's
// workers are its first T vEUs and take rTasks from its ready queue.
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/buffer_arena.h"
#include "core/exec/emulated_trace.h"
#include "core/exec/plan_emulator.h"
#include "core/exec/reference_tiles.h"
#include "core/exec/stall_detector.h"

namespace rammer::exec {

class ProgramRunner {
 public:
  // `plan` must have passed preflightPlan; `threads` >= 1; `graph` (the
  // plan's, schedule::graphOf) and `inputs` feed the reference tiles.
  ProgramRunner(const schedule::Plan& plan, const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                BufferArena& arena, const EmulatorOptions& options, int threads);
  ProgramRunner(const ProgramRunner&) = delete;
  ProgramRunner& operator=(const ProgramRunner&) = delete;

  // Runs every program; the error (deadlock, cancelled, an rKernel that
  // threw) when one stopped the run.
  std::optional<ir::Diagnostic> run();

  // After run(), when options.trace was set.
  sim::Trace trace();

 private:
  struct alignas(64) Step {  // one cache line each: vEUs of different workers never share one
    std::atomic<int32_t> done{0};
  };
  // Runs on one thread when every worker has finished a program: ends it
  // and sets up the next one (std::barrier's completion step).
  struct PhaseEnd {
    ProgramRunner* runner;
    void operator()() noexcept { runner->endPhase(); }
  };

  void worker(int w, std::barrier<PhaseEnd>& phase);
  void runProgram(int w);
  // A dynamic program (schedule/dynamic_program.h): worker w is vEU w and
  // takes rTasks from the ready queue until every rTask has run.
  void runDynamic(int w);
  bool runTask(int w, schedule::RTask task);
  // True when every slot has completed; otherwise `blocking` is one that has not.
  bool released(const schedule::Barrier& b, schedule::Slot* blocking) const;
  void prepare(size_t program);
  void endPhase() noexcept;
  bool stopping();
  void fail(std::string message, std::string node = {});
  void reportDeadlock(size_t program);
  double nowUs() const;

  const schedule::Plan& plan_;
  BufferArena& arena_;
  const EmulatorOptions& options_;
  const int threads_;
  std::chrono::steady_clock::time_point start_;

  // Which ops' outputs to zero before each program (split-K: first program that runs them).
  std::vector<std::vector<int32_t>> zeroBefore_;
  std::unique_ptr<Step[]> steps_;
  size_t program_ = 0;  // the running program; written only between phases
  bool stop_ = false;   // written only between phases
  std::atomic<bool> abort_{false};
  std::atomic<size_t> tasksDone_{0};
  StallDetector detector_;
  std::vector<std::vector<float>> scratch_;  // per worker: a vEU's shared memory
  ReferenceTiles tiles_;                      // the rTasks of kernels without a CPU tile

  // The running dynamic program's queue and gates, under one lock: the
  // unlock after an rTask and the lock before its consumer's claim order
  // the producer's writes before the consumer's reads.
  struct DynamicState {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<int32_t> ready;  // operators with unclaimed rTasks, in arrival order
    std::vector<int64_t> gate, claimed;
    int64_t left = 0, inFlight = 0;  // rTasks not yet finished, claimed and running
  };
  DynamicState dynamic_;

  std::mutex errorMutex_;
  std::optional<ir::Diagnostic> error_;

  // Trace: per worker events; per program and vEU, when each instruction
  // finished (written by the owner before its release store).
  std::vector<WorkerEvents> events_;
  std::vector<std::vector<double>> doneUs_;
  std::vector<sim::ProgramEvent> programs_;
};

}  // namespace rammer::exec
