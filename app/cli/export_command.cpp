// rammer export MODEL [--policy P] [--device D] [--schedule EDITS] [--batch N]
//               [--emit cuda|hip] -o DIR [--seed S] [--json]
// Plans the model, generates its kernels and writes a self-contained project
// (core/codegen/project_export.h): kernels, a harness that checks the
// outputs against the reference executor's and times the runs, the weights,
// seeded random inputs and the expected outputs.
#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/model_loading.h"
#include "app/cli/pipeline_driver.h"
#include "app/cli/plan_loading.h"
#include "core/codegen/project_export.h"
#include "core/pipeline/generate_stage.h"

namespace rammer::cli {

namespace {

struct ExportOptions {
  std::string model;
  pipeline::PlanChoices plan;
  std::string emit = "cuda";
  std::string outDir;
  uint64_t seed = 0;
  bool json = false;
};

void printSummary(const ExportOptions& o, const codegen::GeneratedProgram& gp, const codegen::ExportSummary& s,
                  const PlannedModel& planned, double seconds) {
  const auto fnCount = gp.numFunctions;
  if (o.json) {
    Json j;
    j["model"] = o.model;
    j["policy"] = planned.plan->policy;
    j["device"] = planned.device.id;
    j["emit"] = o.emit;
    j["dir"] = o.outDir;
    j["launches"] = gp.launches.size();
    j["functions"] = fnCount;
    j["table_entries"] = gp.numTableEntries;
    j["source_bytes"] = gp.source.size();
    j["data_bytes"] = s.dataBytes;
    j["files"] = s.files.size();
    j["build"] = s.buildCommand;
    j["seconds"] = seconds;
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("model     {}\n", o.model);
  fmt::print("plan      {} on {}: {} program(s), {} rTasks\n", planned.plan->policy, planned.device.id,
             planned.plan->programs.size(), planned.plan->numRTasks());
  fmt::print("code      {}\n", pipeline::codeSummary(gp));
  fmt::print("data      {:.1f} MiB (weights, inputs, expected outputs)\n", static_cast<double>(s.dataBytes) / (1 << 20));
  fmt::print("wrote     {} files to {} in {}\n", s.files.size(), o.outDir, formatSeconds(seconds));
  fmt::print("build     cd {} && {}\n", o.outDir, s.buildCommand);
}

int runExport(const ExportOptions& o, const GlobalOptions& global) {
  if (o.emit != "cuda" && o.emit != "hip" && o.emit != "host")
    throw CliError("--emit must be cuda, hip or host, not '" + o.emit + "'");
  requireFile(o.model, "model");
  Progress progress(global);
  const auto start = std::chrono::steady_clock::now();

  pipeline::PlanChoices plan = o.plan;
  plan.fitRegisters = o.emit == "cuda";  // the exported CUDA spills nothing
  pipeline::Pipeline p(pipeline::optionsFor(o.model, plan));
  p.options().generate.target = o.emit == "hip"    ? codegen::Target::Hip
                                : o.emit == "host" ? codegen::Target::Host
                                                   : codegen::Target::Cuda;
  p.options().project.dir = o.outDir;
  p.options().project.inputSeed = o.seed;
  runStages(p, pipeline::Stage::Import, pipeline::Stage::Export, progress);
  const pipeline::Artifacts& a = p.artifacts();
  printSummary(o, *a.generated, *a.exported, plannedOf(p), secondsSince(start));
  return 0;
}

}  // namespace

Command addExportCommand(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Generate a model's kernels and write a project that builds with nvcc, hipcc or the system C++ compiler (host), "
      "checks and times them");
  cmd->add_option("MODEL", opts->model, "ONNX model file")->required();
  addPlanOptions(cmd, opts->plan);
  cmd->add_option("--emit", opts->emit, "Code to emit: cuda, hip or host (the same kernels on the CPU)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cuda", "hip", "host"}));
  cmd->add_option("-o,--output", opts->outDir, "Folder to write the project into (created)")->required();
  cmd->add_option("--seed", opts->seed, "Seed of the random inputs the project checks with")->capture_default_str();
  cmd->add_flag("--json", opts->json, "Print one JSON object instead of text");
  return Command{cmd, [opts, &global] { return runExport(*opts, global); }};
}

}  // namespace rammer::cli
