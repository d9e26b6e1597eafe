#pragma once
// The pipeline's Run stage: a validated plan executed on one backend (the
// GPU, the CPU emulator, or the generated code on the CPU), its outputs
// checked against the reference executor on the imported graph by one rule
// for every backend (output_check.h).
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/plan_emulator.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/pipeline/output_check.h"
#include "core/pipeline/stage.h"
#include "core/runtime/cuda_probe.h"
#include "core/runtime/gpu_execution.h"
#include "core/runtime/host_execution.h"
#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::pipeline {

// Where a plan runs. Auto: the GPU when there is one, else the CPU emulator
// (the plan rTask by rTask, barriers enforced). Host: the generated kernels
// themselves, built by the system compiler and run on the CPU ("generated
// code on CPU"; core/runtime/host_execution.h). Gpu: the GPU or an error.
enum class RunTarget { Auto, Emulator, Host, Gpu };
// How a run went: which backend actually ran it.
enum class RunBackend { None, Gpu, Emulator, Host };

// The label of a trace the emulator produced because there is no GPU.
inline constexpr const char* kEmulatedNoGpuLabel = "emulated: CPU (no GPU)";
// ... because the emulator was chosen.
inline constexpr const char* kEmulatedLabel = "emulated: CPU";
// The label of a run of the generated kernels on the CPU (the host target).
inline constexpr const char* kHostCodeLabel = "generated code on CPU";

struct RunRecord;

// Measures more of a GPU run (CUPTI lives in profiler/, above core): adds
// metrics to the record and returns warnings and notes. `libraries` are
// where the run found the driver and NVRTC.
using GpuProfileHook = std::function<std::vector<ir::Diagnostic>(
    const schedule::Plan& plan, const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
    const runtime::ProbeOptions& libraries, RunRecord& record)>;

struct RunOptions {
  RunTarget target = RunTarget::Auto;
  // The inputs, bound in order to the graph's inputs; empty: seeded random
  // inputs (exec/random_inputs.h).
  std::vector<ir::Tensor> inputs;
  uint64_t inputSeed = 0;
  // Also run the reference executor on the imported graph and compare its
  // outputs with the backend's, by the one rule of output_check.h.
  bool checkOutputs = true;
  // The CPU runs (random inputs, reference, emulator, host) refuse a graph
  // whose tensors would exceed this (exec/memory_budget.h); 0: half this
  // machine's memory. The GPU's own memory is the driver's to refuse.
  int64_t maxMemoryBytes = 0;
  // The GPU: what the machine can do (probed when absent) and where the
  // driver and NVRTC are looked for (tests point them at a stand-in).
  std::optional<runtime::CudaCapability> capability;
  runtime::ProbeOptions libraries;
  // Per backend; the cancel flag and progress are filled in by the stage.
  // Defaults: traces on; the host and the GPU time a few runs.
  exec::EmulatorOptions emulator = [] {
    exec::EmulatorOptions o;
    o.trace = true;
    return o;
  }();
  runtime::HostExecutionOptions host = [] {
    runtime::HostExecutionOptions o;
    o.repeat = 3;
    o.measureTrace = true;
    return o;
  }();
  runtime::GpuExecutionOptions gpu = [] {
    runtime::GpuExecutionOptions o;
    o.run.warmup = 2;
    o.run.repeat = 10;
    o.measureTrace = true;
    return o;
  }();
  GpuProfileHook profileGpu;  // empty: no profile
};

struct RunRecord {
  RunBackend backend = RunBackend::None;
  std::string label;  // "emulated: CPU (no GPU)", "measured: NVIDIA H100 ...", kHostCodeLabel
  std::vector<ir::Tensor> inputs;
  std::vector<ir::Tensor> outputs;  // per graph output
  std::shared_ptr<const sim::Trace> trace;                  // measured (GPU, host) or emulated
  std::vector<std::pair<std::string, double>> metrics;      // latency, CUPTI, output check
  // What the backend reported beyond outputs and trace (those moved out).
  std::optional<exec::EmulationResult> emulator;
  std::optional<runtime::HostExecution> host;
  std::optional<runtime::GpuExecution> gpu;
  std::optional<OutputCheck> check;
};

// `rammer run --backend reference`: the reference executor alone on
// `graph` (no plan: its outputs are what every backend is checked
// against), with the CPU runs' memory budget (0: the default); `progress`
// after each node.
ir::Result<std::vector<ir::Tensor>> runReferenceModel(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                                                      int64_t maxMemoryBytes,
                                                      std::function<void(size_t done, size_t total)> progress = {},
                                                      const std::atomic<bool>* cancel = nullptr);

// `plan` was made for `optimized`; `original` is the imported graph, the
// reference for the output check.
ir::Result<RunRecord> runPlan(const schedule::Plan& plan, const ir::Graph& optimized, const ir::Graph& original,
                              const RunOptions& options, const StageContext& context);

}  // namespace rammer::pipeline
