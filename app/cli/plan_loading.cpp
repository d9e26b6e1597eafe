#include "app/cli/plan_loading.h"

#include "app/cli/pipeline_driver.h"
#include <map>

#include "core/schedule/policy.h"

namespace rammer::cli {

void addPlanOptions(CLI::App* cmd, pipeline::PlanChoices& o) {
  // Names and descriptions from the one registry (policy_registry.h).
  std::string help = "Scheduling policy:";
  for (const schedule::PolicyInfo& p : schedule::policyRegistry())
    help += "\n  " + std::string(p.name) + (p.alias.empty() ? "" : " (or " + std::string(p.alias) + ")") + ": " +
            std::string(p.description);
  addPolicyOption(cmd, o.policy, help);
  cmd->add_option("--device", o.device, "Device preset (h100, h200, a100, v100, mi50, mi250x) or a device JSON file")
      ->capture_default_str();
  cmd->add_option("--schedule", o.scheduleFile, "Schedule edits (JSON, see docs/SCHEDULE_EDITS.md)");
  cmd->add_option("--batch", o.batch, "Bind symbolic batch dims to N (default 1)")->check(CLI::PositiveNumber);
  addFuseAttentionFlag(cmd, o.attention);
  addFuseEpiloguesFlag(cmd, o.epilogues);
  addIosOptions(cmd, o.ios);
  addGraphTurboOptions(cmd, o.graphturbo);
  addProgramFlags(cmd, o);
}

void addProgramFlags(CLI::App* cmd, pipeline::PlanChoices& o) {
  cmd->add_flag("--keep-persistent{false}", o.launchFallback,
                "Keep every program the policy planned persistent, even one the cost model predicts slower than its "
                "operators as launches (by default those are planned as launches: core/pipeline/launch_choice.h)");
  cmd->add_flag("--reload-weights{false}", o.residentCells,
                "Plan recurrent cells that read their weights from global memory every step (by default a cell may "
                "keep its slice of them in shared memory where the cost model predicts it faster: "
                "core/pipeline/resident_choice.h)");
}

namespace {

// An unknown name is bad input (exit 1), named with every policy, as the
// registry words it; CLI11's own checks would make it a usage error.
schedule::PolicyId policyOrRefuse(const std::string& name) {
  const ir::Result<schedule::PolicyId> id = schedule::parsePolicy(name);
  if (!id) throw CliError(id.errors().front().message);
  return *id;
}

}  // namespace

void addPolicyOption(CLI::App* cmd, schedule::PolicyId& policy, const std::string& help) {
  cmd->add_option_function<std::string>(
         "--policy", [&policy](const std::string& name) { policy = policyOrRefuse(name); }, help)
      ->default_str(schedule::policyName(policy));
}

std::vector<schedule::PolicyId> policiesNamed(const std::vector<std::string>& names) {
  std::vector<schedule::PolicyId> ids;
  for (const std::string& name : names) ids.push_back(policyOrRefuse(name));
  return ids;
}

void addFuseAttentionFlag(CLI::App* cmd, pipeline::AttentionFusion& mode) {
  static const std::map<std::string, pipeline::AttentionFusion> kModes = {
      {"auto", pipeline::AttentionFusion::Auto}, {"on", pipeline::AttentionFusion::Fused}, {"off", pipeline::AttentionFusion::Unfused}};
  cmd->add_flag("--fuse-attention{on}")
      ->description(
          "Attention (MatMul, scale, mask, Softmax, MatMul) as one flash-attention rOperator: on (the bare flag), off, "
          "or auto (default: plan both ways, keep the one predicted faster); give a value as --fuse-attention=off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->each([&mode](const std::string& v) { mode = kModes.at(v); });
}

void addFuseEpiloguesFlag(CLI::App* cmd, pipeline::EpilogueFusion& mode) {
  static const std::map<std::string, pipeline::EpilogueFusion> kModes = {{"auto", pipeline::EpilogueFusion::Auto},
                                                                         {"on", pipeline::EpilogueFusion::Fused},
                                                                         {"off", pipeline::EpilogueFusion::Unfused}};
  cmd->add_flag("--fuse-epilogues{on}")
      ->description(
          "Element-wise operators (bias, activation, residual add) into the epilogue of the Conv, Gemm or MatMul they "
          "read (FusedConv/FusedGemm/FusedMatMul: one tensor less written and read): on (the bare flag), off, or auto "
          "(default: on, except under --policy ios and graphturbo, which merge and group plain Convs); give a value "
          "as --fuse-epilogues=off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->each([&mode](const std::string& v) { mode = kModes.at(v); });
}

// The policies' own options: flags, help texts and choices from the
// registry (schedule::policyOptions), defaults from the option structs.
void addIosOptions(CLI::App* cmd, schedule::IosOptions& ios) {
  auto help = [](const char* flag) { return schedule::policyOption(schedule::PolicyId::Ios, flag).description; };
  cmd->add_option("--ios-r", ios.maxGroupOps, help("ios-r"))->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--ios-s", ios.maxGroups, help("ios-s"))->capture_default_str()->check(CLI::PositiveNumber);
  // (Their values are checked by the policy, whose message lists them.)
  cmd->add_option("--ios-variant", ios.variant, help("ios-variant"))->capture_default_str();
  cmd->add_option("--ios-programs", ios.programs, help("ios-programs"))->capture_default_str();
}

void addGraphTurboOptions(CLI::App* cmd, schedule::GraphTurboOptions& gt) {
  const schedule::PolicyOption& order = schedule::policyOption(schedule::PolicyId::GraphTurbo, "gt-order");
  cmd->add_option("--gt-order", gt.order, order.description)->capture_default_str()->check(CLI::IsMember(order.choices));
  cmd->add_option_function<int64_t>(
         "--gt-budget", [&gt](int64_t kb) { gt.budgetBytes = kb * 1024; },
         schedule::policyOption(schedule::PolicyId::GraphTurbo, "gt-budget").description)
      ->check(CLI::PositiveNumber);
}

PlannedModel plannedOf(const pipeline::Pipeline& p) {
  const pipeline::Artifacts& a = p.artifacts();
  PlannedModel out;
  out.original = a.original;
  out.optimized = a.planGraph();
  if (a.plan) {
    out.plan = a.plan;
    out.device = a.plan->device;
  }
  out.scheduleSeconds = a.scheduleSeconds;
  out.attention = a.attention;
  out.registerFit = a.registerFit;
  out.launches = a.launches;
  out.residentCells = a.residentCells;
  out.predicted = a.predicted;
  return out;
}

pipeline::Pipeline planRunPipeline(std::shared_ptr<const ir::Graph> original, const std::string& model,
                                   const pipeline::PlanChoices& options, pipeline::RunTarget target,
                                   const std::vector<ir::Tensor>& inputs, bool checkOutputs) {
  pipeline::Pipeline p(pipeline::optionsFor(model, options));
  p.artifacts().original = std::move(original);
  pipeline::RunOptions& run = p.options().run;
  run.target = target;
  run.inputs = inputs;
  run.checkOutputs = checkOutputs;
  return p;
}

PlannedModel planModel(const std::string& model, const pipeline::PlanChoices& o, const Progress& progress, bool simulate) {
  pipeline::Pipeline p(pipeline::optionsFor(model, o));
  runStages(p, pipeline::Stage::Import, simulate ? pipeline::Stage::Simulate : pipeline::Stage::Validate, progress);
  return plannedOf(p);
}

}  // namespace rammer::cli
