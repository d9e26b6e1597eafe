#pragma once
// rammer run MODEL --backend emulator: schedule the optimized graph with
// --policy/--device/--schedule and run the plan on the CPU emulator
// (core/exec/plan_emulator.h) with --threads workers. Inputs and outputs
// work as with the reference backend; --trace writes the emulated
// (wall-clock, CPU) timeline as a Chrome trace.
#include <optional>
#include <string>
#include <vector>

#include "app/cli/cli_support.h"
#include "app/cli/plan_loading.h"
#include "core/ir/graph.h"
#include "core/pipeline/output_check.h"

namespace rammer::cli {

struct EmulatorRunRequest {
  pipeline::PlanChoices plan;       // policy, device, schedule edits (the batch is bound at import)
  int threads = 0;        // 0: one per core
  std::string traceFile;  // emulated Chrome trace JSON; empty: none
  int64_t maxMemoryBytes = 0;  // --max-memory; 0: half this machine's memory
  bool checkOutputs = true;    // against the reference run of the imported graph
};

struct PlanRunOutputs {
  std::shared_ptr<const ir::Graph> optimized;  // what the plan ran
  std::vector<ir::Tensor> outputs;             // per graph output, in order
  std::optional<pipeline::OutputCheck> check;  // when checked
};

// The pipeline from Optimize to Run on the imported `original`: the plan is
// scheduled, validated and emulated on `inputs`. CliError naming the
// problem (an unknown policy, an invalid edit, a deadlock, ...).
PlanRunOutputs runOnEmulator(std::shared_ptr<const ir::Graph> original, const std::string& model,
                             const std::vector<ir::Tensor>& inputs, const EmulatorRunRequest& request,
                             Progress& progress);

}  // namespace rammer::cli
