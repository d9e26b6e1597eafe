#pragma once
// The CPU emulator: runs a Plan the way the GPU would, with real
// concurrency. A pool of worker threads executes the vEUs' instruction
// streams with each rKernel's CPU function; a vEU publishes its progress in
// an atomic step counter (release on completion) and a barrier-rTask polls
// the counters it waits for (acquire), as the generated persistent kernels
// do. Programs run one after another (a kernel boundary: everything done);
// split-K outputs are zeroed before their program; views alias their input.
//
// Threads multiplex vEUs: each worker owns every T-th vEU and runs one until
// it blocks on a barrier, then the next, so any thread count >= 1 runs a
// valid plan. A wait that can never be satisfied (a barrier cycle, a slot
// that does not exist) is reported as a deadlock naming the waiting vEU and
// what it waits for; it never hangs. Its numbers must match the reference
// executor (rtol 1e-4): that checks the schedule and the rKernels at once.
#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "core/ir/graph.h"
#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::exec {

struct EmulatorOptions {
  int threads = 0;    // worker threads; 0: std::thread::hardware_concurrency() (at least 1)
  bool trace = false;  // record a wall-clock sim::Trace ("emulated: CPU")
  const std::atomic<bool>* cancel = nullptr;  // polled by the workers between instructions
  // rTasks done so far, of the plan's total; called on the calling thread
  // at most every 50 ms while the count changes, and always at the end.
  std::function<void(size_t done, size_t total)> progress;
  int64_t maxMemoryBytes = 0;  // refused above this estimate (memory_budget.h); 0: the default budget
};

struct EmulationResult {
  std::vector<ir::Tensor> outputs;  // one per graph output, in order
  std::optional<sim::Trace> trace;  // when EmulatorOptions::trace
  int threads = 0;                  // worker threads used
  double seconds = 0;               // wall-clock time of the programs
};

// `graph` is the optimized graph the plan was made for; `inputs` bind, in
// order, to its inputs. Errors: inputs that do not match, a plan that names
// no real rTask or runs one twice or never, non-float values an rKernel
// would read, a deadlock, "cancelled", or an rKernel that threw.
ir::Result<EmulationResult> emulatePlan(const schedule::Plan& plan, const ir::Graph& graph,
                                        const std::vector<ir::Tensor>& inputs, const EmulatorOptions& options = {});

}  // namespace rammer::exec
