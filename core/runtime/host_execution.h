#pragma once
// The host target for one Plan, as the CLI and the studio use it: generate
// the kernels for the host (instrumented, so a trace costs no second
// build), build them with the system compiler (cached), write the weights
// and inputs next to the run, run the program as a child process, and read
// back the outputs, the latency and, when asked, the per-rTask timings,
// decoded into a measured Trace by the GPU's own decoder. The child is a
// separate process: a crash, a deadlock or a hang in the generated code is
// reported, never shared.
#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/runtime/host_compiler.h"
#include "core/runtime/launch_mode.h"
#include "core/runtime/subprocess.h"
#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::runtime {

struct HostExecutionOptions {
  HostCompilerOptions build;
  int workers = 0;       // the program's worker threads; 0: one per core
  int warmup = 0;        // runs before the timed ones
  int repeat = 1;        // timed runs (>= 1)
  bool measureTrace = false;
  // Graph: the program captures one run's memsets and launches and replays
  // them (the host runtime's emulation of a CUDA graph; docs/CODEGEN.md).
  LaunchMode launch = LaunchMode::Stream;
  double timeoutSeconds = 600;  // the run's limit (a hang that is not a detected deadlock)
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string&)> status;
  // Where the run's data goes; empty: a fresh folder under the temp dir, removed afterwards.
  std::filesystem::path workDir;
};

struct HostExecution {
  HostBuild build;
  std::string deviceName;           // "the host CPU (2 worker threads)"
  int workers = 0;
  std::vector<ir::Tensor> outputs;  // per graph output, from the first run
  double meanRunMs = 0;             // the timed runs' mean, as the program measured it
  LaunchMode launch = LaunchMode::Stream;  // how the program says it launched them
  double processSeconds = 0;        // the whole child process, loading included
  int64_t peakRssKib = 0;           // the program's peak resident memory
  std::optional<sim::Trace> trace;  // when measureTrace
};

// A plan's generated host program and its build.
struct HostProgram {
  codegen::GeneratedProgram program;
  HostBuild build;
};

// Generates the plan's kernels for the host (instrumented) and builds them.
ir::Result<HostProgram> buildHostPlan(const schedule::Plan& plan, const ir::Graph& graph,
                                      const HostExecutionOptions& options = {});

// Runs a built program on `inputs` (they bind, in order, to the graph's
// inputs). Errors: the run's (a deadlock naming the program, vEUs and
// barriers; a trap; divergent __syncthreads; a crash with its signal; in a
// ThreadSanitizer build, every data race it reported), a timeout, a cancel.
// What a failed run of a host program said went wrong: its "error: ..."
// lines; else how it ended, with its last lines (a sanitizer's or the C++
// runtime's abort says why there).
std::vector<ir::Diagnostic> hostRunFailure(const SubprocessResult& r);

ir::Result<HostExecution> runHostProgram(const HostProgram& built, const schedule::Plan& plan, const ir::Graph& graph,
                                         const std::vector<ir::Tensor>& inputs, const HostExecutionOptions& options = {});

// Both: `graph` is the optimized graph the plan was made from. Build errors:
// no compiler, a compile error with file and line.
ir::Result<HostExecution> executeOnHost(const schedule::Plan& plan, const ir::Graph& graph,
                                        const std::vector<ir::Tensor>& inputs, const HostExecutionOptions& options = {});

}  // namespace rammer::runtime
