#pragma once
// rammer run MODEL --backend emulator: schedule the optimized graph with
// --policy/--device/--schedule and run the plan on the CPU emulator
// (core/exec/plan_emulator.h) with --threads workers. Inputs and outputs
// work as with the reference backend; --trace writes the emulated
// (wall-clock, CPU) timeline as a Chrome trace.
#include <string>
#include <vector>

#include "app/cli/cli_support.h"
#include "app/cli/plan_loading.h"
#include "core/ir/graph.h"

namespace rammer::cli {

struct EmulatorRunRequest {
  PlanOptions plan;       // policy, device, schedule edits (the batch is bound at import)
  int threads = 0;        // 0: one per core
  std::string traceFile;  // emulated Chrome trace JSON; empty: none
};

// Schedules and validates a plan for `optimized`, emulates it on `inputs`
// and returns the graph outputs in order. CliError naming the problem (an
// unknown policy, an invalid edit, a deadlock, ...).
std::vector<ir::Tensor> runOnEmulator(const ir::Graph& optimized, const std::vector<ir::Tensor>& inputs,
                                      const EmulatorRunRequest& request, Progress& progress);

}  // namespace rammer::cli
