#pragma once
// Profiling one Plan on the GPU (what `rammer profile` runs):
//   1. the plain build, warm-up then timed runs, with CUPTI activity
//      records on: latency per run and kernel time per launch (rProgram);
//   2. the instrumented build once: every rTask's start/end (%globaltimer)
//      and SM, decoded into the measured Trace, whose per-rTask times per
//      rKernel fill the profile database;
//   3. the plain build again under the CUPTI range profiler: SM efficiency,
//      warp activity and active cycles per launch.
// A CUPTI part that is unavailable (see ProfilerCapability) or fails is
// skipped with the reason in words; its numbers are then estimates from
// steps 1-2, labelled as such.
#include <memory>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/runtime/cuda_runner.h"
#include "core/runtime/program_compiler.h"
#include "core/runtime/resource_check.h"
#include "core/schedule/plan.h"
#include "core/sim/profile_db.h"
#include "core/sim/trace.h"
#include "profiler/capability.h"

namespace rammer::profiler {

struct MetricValue {
  double value = 0;
  bool measured = false;  // read from a CUPTI counter; false: an estimate
  std::string source;     // "CUPTI range profiler", "estimate from rTask timestamps", ...
};

// One launch (= one rProgram).
struct ProgramProfile {
  int32_t program = -1;
  std::string kernel;
  int gridBlocks = 0;
  int blockThreads = 0;
  bool persistent = true;
  int blocksPerSM = 0;  // the driver's occupancy
  int registers = 0;
  sim::TimeStats kernelTime;  // CUPTI activity over the timed runs; samples 0: not measured
  double rtaskSpanUs = 0;     // first rTask start to last rTask end, instrumented run
  MetricValue smEfficiencyPct;
  MetricValue warpActivityPct;
  MetricValue smCyclesActive;
};

struct ProfileResult {
  std::string deviceName;  // the GPU
  std::string arch;        // compiled for, "sm_90"
  int sms = 0;
  ProfilerCapability capability;
  // What gave the kernel times and the counters, or why nothing did.
  std::string timestampsNote;
  std::string countersNote;
  std::vector<double> latencyUs;  // per timed run (CUDA events around all launches)
  std::vector<ProgramProfile> programs;
  std::vector<runtime::ProgramResources> resources;  // per launch, from ptxas
  sim::Trace trace;  // measured, from the instrumented run
  sim::ProfileDB db;  // this run's entries, for plan.device
};

struct ProfileOptions {
  int warmup = 2;
  int repeat = 10;
  double watchdogSeconds = 10;
  bool useActivity = true;  // CUPTI kernel records, where available
  bool useCounters = true;  // CUPTI range profiler, where available
  ProfilerProbeOptions probe;
};

// The whole path: probe, generate both builds, compile for the GPU, check
// resources (the plan gets the compiled register counts), measure.
// Errors: no driver/GPU/NVRTC (the probe's words), code generation,
// compilation, a refused or failed run, a run that recorded no rTask.
ir::Result<ProfileResult> profilePlan(schedule::Plan& plan, const ir::Graph& graph,
                                      const std::vector<ir::Tensor>& inputs, const ProfileOptions& options = {});

// A generated program and its compiled code.
struct ProfileBuild {
  codegen::GeneratedProgram program;
  runtime::CompiledProgram compiled;
};

// What to measure on: an opened runner, its driver (for the primary
// context the range profiler attaches to) and, when loaded, CUPTI.
struct ProfileTarget {
  const runtime::CudaDriver& driver;
  runtime::CudaRunner& runner;
  const ProfilerCapability& capability;
  std::shared_ptr<const CuptiLibrary> cupti;  // may be null
};

// Steps 1-3 on prepared builds (`instrumented` must record timings).
ir::Result<ProfileResult> profileBuilds(const ProfileTarget& target, const schedule::Plan& plan,
                                        const ir::Graph& graph, const ProfileBuild& plain,
                                        const ProfileBuild& instrumented, const std::vector<ir::Tensor>& inputs,
                                        const ProfileOptions& options);

}  // namespace rammer::profiler
