#pragma once
// What every scheduling subcommand shares (schedule, run --backend emulator
// or cuda, export, profile): the --policy/--device/--schedule/--batch
// options, importing and optimizing the model, and building a Plan that the
// validator accepts. A schedule edit that breaks the plan is refused with
// the validator's message.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "app/cli/cli_support.h"
#include "core/device/device_spec.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"
#include "core/sim/cost_model.h"

namespace rammer::cli {

struct PlanOptions {
  std::string policy = "wavefront";
  std::string device = "h100";
  std::string scheduleFile;  // schedule edits (docs/SCHEDULE_EDITS.md); empty: none
  int64_t batch = 0;         // 0: symbolic batch dims become 1 (the paper's batch)
  // The rTask times the policy plans with (null: the analytic cost model,
  // what `rammer schedule` predicts with).
  std::shared_ptr<const sim::CostModel> costModel;
};

// Adds --policy, --device, --schedule and --batch to `cmd`.
void addPlanOptions(CLI::App* cmd, PlanOptions& options);

// Imports (binding symbolic batch dims) and runs the standard passes.
ir::Graph loadOptimizedModel(const std::string& model, const PlanOptions& options, const Progress& progress);

struct PlannedModel {
  device::DeviceSpec device;
  schedule::Plan plan;
  double scheduleSeconds = 0;
};

// Schedules an optimized graph with the chosen policy, device and edits,
// then validates; CliError naming the problem otherwise.
PlannedModel planGraph(const ir::Graph& optimized, const PlanOptions& options, const Progress& progress);

}  // namespace rammer::cli
