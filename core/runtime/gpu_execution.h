#pragma once
// The whole GPU path for one Plan, as the CLI and the GUI use it: generate
// the code, compile it for the GPU that is there, check every program's
// resources against the plan's device and the driver, run it (warm-up,
// timed runs), copy the outputs back and, when asked, run an instrumented
// build once more and decode its timings into a measured Trace.
#include <optional>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/runtime/cuda_probe.h"
#include "core/runtime/cuda_runner.h"
#include "core/runtime/resource_check.h"
#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::runtime {

struct GpuExecutionOptions {
  GpuRunOptions run;
  bool measureTrace = false;  // also run an instrumented build and decode it
  ProbeOptions libraries;     // where the driver and NVRTC are looked for
  // Non-empty: held locked (flock) while the GPU runs, so that several
  // processes can generate and compile side by side while their timed runs
  // never overlap (the lease recorder starts runs in parallel).
  std::string lockFile;
};

struct GpuExecution {
  std::string deviceName;
  std::string arch;  // compiled for, "sm_90"
  std::vector<ProgramResources> resources;  // per launch, from ptxas
  // FNV-1a 64 of the plain build's source, in hex: which code the latency
  // belongs to, so a recorded trace names the exact kernels it measured.
  std::string sourceHash;
  double instrumentedLatencyUs = 0;  // the recording run's latency (when measureTrace)
  GpuRun run;                              // outputs and latencies (uninstrumented build)
  std::optional<sim::Trace> trace;         // when measureTrace
};

// `plan` gets the compiled register counts (see applyCompiledResources).
// `graph` is the optimized graph the plan was made from; `inputs` bind to
// its inputs in order. Errors: no driver/GPU/NVRTC (the probe's message),
// code generation, compilation (with NVRTC's log), a refused program, a
// failed or hung run.
ir::Result<GpuExecution> executeOnGpu(schedule::Plan& plan, const ir::Graph& graph,
                                      const std::vector<ir::Tensor>& inputs, const GpuExecutionOptions& options = {});

}  // namespace rammer::runtime
