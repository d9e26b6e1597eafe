// rammer profile MODEL [--policy P] [--device D] [--schedule E] [--batch N]
//                [--db FILE] [--repeat N] [--warmup N] [--seed S] [--json]
//
// Runs the plan on the GPU instrumented (profiler/profile_session.h):
// kernel time per rProgram (CUPTI activity), SM efficiency, warp activity
// and active cycles per rProgram (CUPTI range profiler), and every rTask's
// time, which go per rKernel into the profile database for the plan's
// device (--db, default rammer-profile-<device>.json; merged when it
// exists). Then it predicts the plan with the analytic model and with the
// database, next to the measured latency. Without a GPU: exit 1 with what
// is missing. What CUPTI cannot measure is shown as a labelled estimate.
#include <fmt/core.h>

#include <filesystem>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/model_loading.h"
#include "app/cli/plan_loading.h"
#include "app/cli/profile_report.h"
#include "core/exec/random_inputs.h"
#include "core/sim/profile_db.h"
#include "profiler/profile_session.h"

namespace rammer::cli {

namespace {

struct ProfileCommandOptions {
  std::string model;
  pipeline::PlanChoices plan;
  std::string db;  // empty: rammer-profile-<device id>.json
  int repeat = 10;
  int warmup = 2;
  uint64_t seed = 0;
  bool json = false;
  int maxRows = 20;
};

// The database to add to: the file's, or a new one for `device`.
sim::ProfileDB openDatabase(const std::string& file, const std::string& device) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return sim::ProfileDB(device);
  auto db = sim::loadProfileDB(file);
  if (!db) throwDiagnostics(db.errors());
  if (db->device() != device)
    throw CliError(fmt::format("{}: holds measurements for device '{}', not '{}' (--device); use another --db", file,
                               db->device(), device));
  return std::move(db).value();
}

int runProfile(const ProfileCommandOptions& o, const GlobalOptions& global) {
  requireFile(o.model, "model");
  auto device = device::loadDevice(o.plan.device);
  if (!device) throwDiagnostics(device.errors(), "--device " + o.plan.device);
  const std::string dbFile = o.db.empty() ? "rammer-profile-" + device->id + ".json" : o.db;
  sim::ProfileDB db = openDatabase(dbFile, device->id);

  // Before any work: say plainly what this machine lacks.
  const profiler::ProfilerCapability capability = profiler::probeProfiler();
  if (!capability.canRun()) throw CliError("cannot profile on the GPU: " + capability.message);

  Progress progress(global);
  progress.status("profiler: " + capability.message);
  pipeline::PlanChoices choices = o.plan;
  choices.fitRegisters = true;  // profile the plan a run would run
  PlannedModel planned = planModel(o.model, choices, progress);
  const ir::Graph& graph = *planned.optimized;
  auto inputs = exec::makeRandomInputs(graph, o.seed);
  if (!inputs) throwDiagnostics(inputs.errors(), "random inputs");

  progress.status(fmt::format("compiling and profiling on {} ({} timed runs)...", capability.cuda.deviceName,
                              o.repeat));
  profiler::ProfileOptions po;
  po.warmup = o.warmup;
  po.repeat = o.repeat;
  schedule::Plan plan = *planned.plan;  // profiling records the compiled register counts in it
  auto result = profiler::profilePlan(plan, graph, *inputs, po);
  if (!result) throwDiagnostics(result.errors(), "profiling");
  const profiler::ProfileResult& r = *result;

  if (auto errors = sim::mergeProfileDB(db, r.db); !errors.empty()) throwDiagnostics(errors, dbFile);
  if (auto errors = sim::saveProfileDB(db, dbFile); !errors.empty()) throwDiagnostics(errors);

  auto predicted = predictWithDatabase(plan, db);
  if (!predicted) throwDiagnostics(predicted.errors(), "simulating the plan");
  const ProfileReport report{o.model, schedule::policyName(o.plan.policy), dbFile, plan, r, db, *predicted};
  if (o.json) fmt::print("{}\n", profileReportJson(report).dump(2));
  else fmt::print("{}", profileReportText(report, o.maxRows));
  return 0;
}

}  // namespace

Command addProfileCommand(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<ProfileCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Run a plan on the GPU with CUPTI and record measured rTask times per rKernel in a profile database");
  cmd->add_option("MODEL", opts->model, "ONNX model file")->required();
  addPlanOptions(cmd, opts->plan);
  cmd->add_option("--db", opts->db, "Profile database (JSON) to add to; default rammer-profile-<device>.json");
  cmd->add_option("--repeat", opts->repeat, "Timed runs")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--warmup", opts->warmup, "Runs before the timed ones")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed of the random inputs")->capture_default_str();
  cmd->add_flag("--json", opts->json, "Print one JSON object instead of text");
  cmd->add_option("--max-rows", opts->maxRows, "rKernel rows in the text output (0: all)")->capture_default_str();
  return Command{cmd, [opts, &global] { return runProfile(*opts, global); }};
}

}  // namespace rammer::cli
