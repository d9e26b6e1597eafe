#pragma once
// rammer run MODEL --backend cuda: compile the plan's generated code with
// NVRTC, run it on the GPU N times, and report latency (median and spread),
// the outputs checked against the reference executor, and metrics.
#include <cstdint>
#include <string>

#include "app/cli/cli_support.h"
#include "app/cli/plan_loading.h"
#include "core/runtime/launch_mode.h"

namespace rammer::cli {

struct CudaRunRequest {
  std::string model;
  pipeline::PlanChoices plan;
  std::string inputsDir;   // empty: seeded random inputs
  uint64_t seed = 0;
  std::string outputsDir;  // empty: outputs are only checked, not written
  std::string traceFile;   // measured Chrome trace; empty: none
  bool metrics = false;
  int repeat = 10;
  int warmup = 2;
  // A run slower than this is taken for a deadlock; a sanitizer slows
  // kernels a thousandfold, so its runs need a longer one.
  double watchdogSeconds = 10;
  std::string gpuLock;  // empty: none (runtime::GpuExecutionOptions::lockFile)
  int64_t maxMemoryBytes = 0;  // the CPU side (inputs, reference); 0: half this machine's memory
  bool checkOutputs = true;    // the Run stage's output check (core/pipeline/output_check.h)
  runtime::LaunchMode launch = runtime::LaunchMode::Stream;  // graph: each run one CUDA graph replay
  bool json = false;
};

// Exit code 0 when the outputs match the reference (or are not checked), 1 otherwise; CliError
// (exit 1) without a driver, GPU or NVRTC, naming what is missing.
int runCudaBackend(const CudaRunRequest& request, const GlobalOptions& global);

}  // namespace rammer::cli
