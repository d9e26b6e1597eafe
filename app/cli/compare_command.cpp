// rammer compare MODEL [--device D] [--policies P,Q,...] [--batch N]
//                [--fuse-attention[=auto|on|off]] [--fuse-epilogues[=...]]
//                [--ios-r R --ios-s S --ios-variant V --ios-programs P]
//                [--gt-order O --gt-budget KB] [--json]
// Every policy's plan of one model on one device side by side: predicted
// latency and its speedup over sequential (RammerBase), rPrograms,
// barriers, vEUs, vEU utilization (the predicted SM efficiency), predicted
// DRAM traffic and the time the policy took. The model is imported and
// optimized once; a policy that fails gets its reason in its row, and the
// exit status is 1 only when every policy failed.
//
// --json: {model, device, device_name, cost_model, policies[] {policy, ok,
// error, predicted_latency_us, speedup_vs_sequential (null without a
// sequential plan), programs, barriers, veus, rtasks, sm_efficiency,
// dram_bytes, schedule_seconds, attention_fused (null unless auto weighed
// both)}}.
#include <fmt/core.h>

#include <memory>
#include <optional>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/model_loading.h"
#include "app/cli/pipeline_driver.h"
#include "app/cli/plan_loading.h"
#include "core/ops/model_summary.h"
#include "core/pipeline/policy_comparison.h"
#include "core/schedule/policy.h"
#include "core/sim/plan_figures.h"

namespace rammer::cli {

namespace {

struct CompareOptions {
  std::string model;
  pipeline::PlanChoices plan;
  std::vector<std::string> policies = schedule::policyNames();
  bool json = false;
};

using pipeline::PolicyRun;

std::vector<PolicyRun> planEveryPolicy(const CompareOptions& o, const Progress& progress, std::string& deviceName) {
  pipeline::Pipeline p(pipeline::optionsFor(o.model, o.plan));
  runStages(p, pipeline::Stage::Import, pipeline::Stage::Optimize, progress);
  pipeline::Control control;
  std::string last;
  control.progress = [&progress, &last](const std::string& what, int) {
    if (what == last) return;
    last = what;
    progress.status(what);
  };
  std::vector<PolicyRun> rows =
      pipeline::planEveryPolicy(p.options(), p.artifacts(), o.plan.policy, policiesNamed(o.policies), control);
  for (const PolicyRun& r : rows)
    if (r.ok()) deviceName = r.plan->device.name;
  return rows;
}

void printText(const CompareOptions& o, const std::vector<PolicyRun>& rows, const std::string& device,
               const std::string& costModel) {
  fmt::print("model    {}\n", o.model);
  fmt::print("device   {}; {} (predictions, not measurements)\n", device, costModel);
  fmt::print("{:<11} {:>11} {:>8} {:>8} {:>8} {:>5} {:>9} {:>10} {:>10}\n", "policy", "latency us", "speedup",
             "programs", "barriers", "vEUs", "vEU util", "DRAM", "planned in");
  for (const PolicyRun& r : rows) {
    if (!r.ok()) {
      fmt::print("{:<11} failed: {}\n", schedule::policyName(r.policy), pipeline::failureText(r));
      continue;
    }
    const sim::PlanFigures& f = r.figures;
    const std::optional<double> x = pipeline::speedupOverSequential(rows, r);
    const std::string speedup = x ? fmt::format("{:.2f}x", *x) : "-";
    fmt::print("{:<11} {:>11.1f} {:>8} {:>8} {:>8} {:>5} {:>8.1f}% {:>10} {:>10}{}\n", schedule::policyName(r.policy), f.predictedUs, speedup,
               f.programs, f.barriers, f.maxVEUs, 100 * f.smEfficiency,
               ops::formatBytes(static_cast<int64_t>(f.dramBytes)), formatSeconds(r.scheduleSeconds),
               r.attentionFused ? (*r.attentionFused ? "  (attention fused)" : "") : "");
  }
  fmt::print("speedup is sequential's (RammerBase's) predicted latency over the policy's; vEU util is the predicted\n"
             "SM efficiency: busy vEU time over the vEUs' time\n");
  for (const PolicyRun& r : rows)
    if (r.policy == schedule::PolicyId::Dynamic && r.ok())
      fmt::print("dynamic has no barriers: its vEUs take rTasks from a ready queue at run time, a dispatch per rTask\n"
                 "({} of them; `rammer schedule --policy dynamic --json` has their vEU time)\n",
                 r.figures.rtasks);
}

Json toJson(const CompareOptions& o, const std::vector<PolicyRun>& rows, const std::string& device,
            const std::string& deviceName, const std::string& costModel) {
  Json j;
  j["model"] = o.model;
  j["device"] = device;
  j["device_name"] = deviceName;
  j["cost_model"] = costModel;
  j["policies"] = Json::array();
  for (const PolicyRun& r : rows) {
    const sim::PlanFigures& f = r.figures;
    const std::optional<double> speedup = pipeline::speedupOverSequential(rows, r);
    Json e;
    e["policy"] = schedule::policyName(r.policy);
    e["ok"] = r.ok();
    e["error"] = r.ok() ? Json(nullptr) : Json(pipeline::failureText(r));
    e["predicted_latency_us"] = f.predictedUs;
    e["speedup_vs_sequential"] = speedup ? Json(*speedup) : Json(nullptr);
    e["programs"] = f.programs;
    e["barriers"] = f.barriers;
    e["veus"] = f.maxVEUs;
    e["rtasks"] = f.rtasks;
    e["sm_efficiency"] = f.smEfficiency;
    e["dram_bytes"] = f.dramBytes;
    e["schedule_seconds"] = r.scheduleSeconds;
    e["attention_fused"] = r.attentionFused ? Json(*r.attentionFused) : Json(nullptr);
    j["policies"].push_back(std::move(e));
  }
  return j;
}

int runCompare(const CompareOptions& o, const GlobalOptions& global) {
  requireFile(o.model, "model");
  Progress progress(global);
  std::string deviceName = o.plan.device;
  const std::vector<PolicyRun> rows = planEveryPolicy(o, progress, deviceName);
  const std::string costModel = (o.plan.costModel ? o.plan.costModel : pipeline::defaultCostModel())->name();
  if (o.json) fmt::print("{}\n", toJson(o, rows, o.plan.device, deviceName, costModel).dump(2));
  else printText(o, rows, o.plan.device + " (" + deviceName + ")", costModel);
  for (const PolicyRun& r : rows)
    if (r.ok()) return 0;
  throw CliError("no policy could plan " + o.model);
}

}  // namespace

Command addCompareCommand(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Plan a model with every policy and compare the predictions side by side");
  cmd->add_option("MODEL", opts->model, "ONNX model file")->required();
  std::string names;
  for (const auto& n : schedule::policyNames()) names += (names.empty() ? "" : ",") + n;
  cmd->add_option("--policies", opts->policies, "Policies to compare (default all: " + names + ")")
      ->delimiter(',')
      ->check(CLI::IsMember(schedule::policyNames()));
  cmd->add_option("--device", opts->plan.device, "Device preset (h100, h200, a100, v100, mi50, mi250x) or a device JSON file")
      ->capture_default_str();
  cmd->add_option("--batch", opts->plan.batch, "Bind symbolic batch dims to N (default 1)")->check(CLI::PositiveNumber);
  addFuseAttentionFlag(cmd, opts->plan.attention);
  addFuseEpiloguesFlag(cmd, opts->plan.epilogues);
  addIosOptions(cmd, opts->plan.ios);
  addGraphTurboOptions(cmd, opts->plan.graphturbo);
  cmd->add_flag("--json", opts->json, "Print one JSON object instead of text");
  return {cmd, [opts, &global] { return runCompare(*opts, global); }};
}

}  // namespace rammer::cli
