#include "app/cli/plan_loading.h"

#include <fmt/core.h>

#include <fstream>
#include <sstream>

#include "app/cli/model_loading.h"
#include "app/cli/optimize.h"
#include "core/schedule/policy.h"
#include "core/schedule/schedule_edits.h"
#include "core/schedule/validator.h"
#include "core/sim/analytic_cost_model.h"

namespace rammer::cli {

void addPlanOptions(CLI::App* cmd, PlanOptions& o) {
  std::string names;
  for (const auto& n : schedule::policyNames()) names += (names.empty() ? "" : "|") + n;
  cmd->add_option("--policy", o.policy, "Scheduling policy: " + names)->capture_default_str();
  cmd->add_option("--device", o.device, "Device preset (h100, h200, a100, v100, mi50, mi250x) or a device JSON file")
      ->capture_default_str();
  cmd->add_option("--schedule", o.scheduleFile, "Schedule edits (JSON, see docs/SCHEDULE_EDITS.md)");
  cmd->add_option("--batch", o.batch, "Bind symbolic batch dims to N (default 1)")->check(CLI::PositiveNumber);
}

ir::Graph loadOptimizedModel(const std::string& model, const PlanOptions& o, const Progress& progress) {
  onnx_import::ImportOptions options;
  options.batch = o.batch > 0 ? o.batch : 1;
  ir::Graph graph = loadModel(model, options, progress);
  optimizeGraph(graph, progress);
  return graph;
}

namespace {

std::string readTextFile(const std::string& path, const std::string& what) {
  requireFile(path, what);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  if (!in && !in.eof()) throw CliError(path + ": cannot read the " + what);
  return s.str();
}

}  // namespace

PlannedModel planGraph(const ir::Graph& optimized, const PlanOptions& o, const Progress& progress) {
  PlannedModel out;
  auto device = device::loadDevice(o.device);
  if (!device) throwDiagnostics(device.errors(), "--device " + o.device);
  out.device = std::move(device).value();

  schedule::Constraints constraints;
  if (!o.scheduleFile.empty()) {
    auto parsed = schedule::parseScheduleEdits(readTextFile(o.scheduleFile, "schedule edits file"), &optimized,
                                               o.scheduleFile);
    if (!parsed) throwDiagnostics(parsed.errors());
    constraints = std::move(parsed).value();
  }

  std::shared_ptr<const sim::CostModel> model = o.costModel;
  if (!model) model = std::make_shared<const sim::AnalyticCostModel>();
  auto policy = schedule::makePolicy(o.policy, sim::policyOptions(model));
  if (!policy) throwDiagnostics(policy.errors(), "--policy");
  progress.status(fmt::format("scheduling with {} on {}...", o.policy, out.device.id));
  const auto start = std::chrono::steady_clock::now();
  auto plan = (*policy)->schedule(optimized, out.device, constraints);
  if (!plan) throwDiagnostics(plan.errors(), o.scheduleFile.empty() ? "scheduling" : "applying " + o.scheduleFile);
  out.scheduleSeconds = secondsSince(start);

  // Policies honour the edits as given; an edit can still ask for something
  // unsafe (a pinned order that puts a consumer first), which the validator
  // catches: refuse it and say which rTasks it would break.
  if (auto problems = schedule::validate(plan.value(), optimized); !problems.empty())
    throwDiagnostics(problems, o.scheduleFile.empty() ? "the plan is invalid"
                                                      : "the schedule edits in " + o.scheduleFile + " break the plan");
  out.plan = std::move(plan).value();
  return out;
}

}  // namespace rammer::cli
