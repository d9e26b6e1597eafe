#pragma once
// rammer run MODEL --backend host: schedule the optimized graph with
// --policy/--device/--schedule, generate its kernels for the host target,
// build them with the system C++ compiler (cached by a hash of the source)
// and run the generated program on the CPU (core/runtime/host_execution.h).
// Inputs and outputs work as with the emulator backend; --trace writes the
// program's own per-rTask timings as a Chrome trace.
#include <optional>
#include <string>
#include <vector>

#include "app/cli/cli_support.h"
#include "app/cli/json_output.h"
#include "app/cli/plan_loading.h"
#include "core/ir/graph.h"
#include "core/pipeline/output_check.h"
#include "core/runtime/launch_mode.h"

namespace rammer::cli {

struct HostRunRequest {
  pipeline::PlanChoices plan;
  int threads = 0;        // worker threads; 0: one per core
  int repeat = 1;         // timed runs
  std::string traceFile;  // measured Chrome trace JSON; empty: none
  bool threadSanitizer = false;  // build and run with -fsanitize=thread
  int64_t maxMemoryBytes = 0;    // --max-memory; 0: half this machine's memory
  bool checkOutputs = true;      // against the reference run of the imported graph
  runtime::LaunchMode launch = runtime::LaunchMode::Stream;  // graph: each run one replay of the captured launches
};

struct HostRunReport {
  std::shared_ptr<const ir::Graph> optimized;  // what the plan ran
  std::vector<ir::Tensor> outputs;
  std::optional<pipeline::OutputCheck> check;  // when checked
  runtime::LaunchMode launch = runtime::LaunchMode::Stream;  // how the program launched its timed runs
  Json json;                       // what --json adds: build and run figures
  std::vector<std::string> lines;  // the same as text lines
};

// The pipeline from Optimize to Run on the imported `original`: the plan is
// scheduled, validated, built and run on `inputs`. CliError naming the
// problem (an unknown policy, an invalid edit, no compiler, a compile
// error, a deadlock, a data race, ...).
HostRunReport runOnHost(std::shared_ptr<const ir::Graph> original, const std::string& model,
                        const std::vector<ir::Tensor>& inputs, const HostRunRequest& request, Progress& progress);

}  // namespace rammer::cli
