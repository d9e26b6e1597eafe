#pragma once
// What every scheduling subcommand shares (schedule, run --backend
// emulator/host/cuda, export, profile): the --policy/--device/--schedule/
// --batch options and the core pipeline set up from them, run up to a Plan
// that the validator accepts. A schedule edit that breaks the plan is
// refused with the validator's message.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli_support.h"
#include "core/device/device_spec.h"
#include "core/ir/graph.h"
#include "core/pipeline/pipeline.h"
#include "core/pipeline/plan_choices.h"
#include "core/schedule/plan.h"
#include "core/schedule/policy.h"
#include "core/sim/cost_model.h"
#include "core/sim/trace.h"

namespace rammer::cli {

// Adds --policy, --device, --schedule, --batch, --fuse-attention,
// --fuse-epilogues, the IOS and GraphTurbo options and the program flags
// (addProgramFlags) to `cmd`.
void addPlanOptions(CLI::App* cmd, pipeline::PlanChoices& options);
// --policy NAME into `policy` (its current value the default); an unknown
// name is a CliError listing the policies, thrown while parsing.
void addPolicyOption(CLI::App* cmd, schedule::PolicyId& policy, const std::string& help);
// The policies `names` name; a CliError for an unknown one.
std::vector<schedule::PolicyId> policiesNamed(const std::vector<std::string>& names);
// --fuse-attention auto|on|off (pipeline::AttentionFusion); the bare flag is "on".
void addFuseAttentionFlag(CLI::App* cmd, pipeline::AttentionFusion& mode);
// --fuse-epilogues auto|on|off (pipeline::EpilogueFusion); the bare flag is "on".
void addFuseEpiloguesFlag(CLI::App* cmd, pipeline::EpilogueFusion& mode);
// --keep-persistent and --reload-weights: what the Schedule stage may
// change of the policy's programs (launch_choice.h, resident_choice.h).
void addProgramFlags(CLI::App* cmd, pipeline::PlanChoices& choices);
// --ios-r, --ios-s, --ios-variant (what --policy ios searches with).
void addIosOptions(CLI::App* cmd, schedule::IosOptions& ios);
// --gt-order, --gt-budget (what --policy graphturbo groups and orders with).
void addGraphTurboOptions(CLI::App* cmd, schedule::GraphTurboOptions& gt);

struct PlannedModel {
  std::shared_ptr<const ir::Graph> original;   // as imported: the reference
  std::shared_ptr<const ir::Graph> optimized;  // what the plan runs
  device::DeviceSpec device;
  std::shared_ptr<const schedule::Plan> plan;  // the pipeline's own, not a copy: a plan can be large
  double scheduleSeconds = 0;
  std::optional<pipeline::AttentionDecision> attention;  // when both ways were planned
  std::optional<pipeline::RegisterFitRecord> registerFit;  // when the plan was compiled to fit its registers
  std::optional<pipeline::LaunchChoice> launches;          // when programs were planned as launches
  std::optional<pipeline::ResidentChoice> residentCells;  // when the policy kept cells' weights on chip
  std::shared_ptr<const sim::Trace> predicted;  // when the stages ran to Simulate
};

// The plan of a pipeline that ran to Validate (or further).
PlannedModel plannedOf(const pipeline::Pipeline& p);

// A pipeline that runs a plan of `original` (imported by the caller, with
// the given inputs' shapes bound) on `target` with `inputs`, the outputs
// checked against the reference run of `original` unless `checkOutputs` is
// false. Set the backend's options, then run it from Optimize to Run.
pipeline::Pipeline planRunPipeline(std::shared_ptr<const ir::Graph> original, const std::string& model,
                                   const pipeline::PlanChoices& options, pipeline::RunTarget target,
                                   const std::vector<ir::Tensor>& inputs, bool checkOutputs);

// Imports, optimizes, schedules with the chosen policy, device and edits,
// and validates (and predicts, with `simulate`); CliError naming the
// problem otherwise.
PlannedModel planModel(const std::string& model, const pipeline::PlanChoices& options, const Progress& progress,
                       bool simulate = false);

}  // namespace rammer::cli
