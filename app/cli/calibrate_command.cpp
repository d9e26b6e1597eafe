// rammer calibrate LEASE_DIR [--models DIRS] [--fit POLICIES] [-o FILE] [--json]
//
// Fits the cost model to a lease's measured runs (issue #28 item 2).
// pipeline::calibrateLease does the work: each run's plan rebuilt from its
// trace, the calibration fitted on the runs of the --fit policies (default:
// every policy), every run predicted with it and with the analytic model
// beside its measured latency. The summary, over the runs not fitted (all
// when every run was), gives the median and largest error and the policy
// pairs of one model that measured more than 10% apart and that the
// calibrated prediction orders the other way. -o writes the calibration.
// A run whose model is in no --models folder (as MODEL.onnx or
// MODEL/model.onnx), or whose plan cannot be rebuilt, is listed with why.
//
// --json: {"lease", "device", "calibration" {...}, "runs": [{"run", "model",
// "policy", "fitted", "measured_us", "calibrated_us", "analytic_us",
// "calibrated_error", "analytic_error"} | {"run", "skipped"}], "held_out":
// {"runs", "all_fitted", "median_abs_error", "max_abs_error",
// "analytic_median_abs_error", "misranked": [{"model", "faster", "slower",
// "measured_ratio"}]}}.
#include <fmt/core.h>

#include <fstream>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/model_loading.h"
#include "core/pipeline/lease_calibration.h"

namespace rammer::cli {

namespace {

struct CalibrateOptions {
  std::string lease;
  std::vector<std::string> models;
  std::vector<std::string> fit;  // empty: every policy
  std::string output;
  bool json = false;
};

Json toJson(const pipeline::LeaseCalibration& c, const std::string& lease) {
  Json runs = Json::array();
  for (const auto& r : c.runs) {
    if (!r.skipped.empty()) {
      runs.push_back({{"run", r.key}, {"skipped", r.skipped}});
      continue;
    }
    runs.push_back({{"run", r.key},
                    {"model", r.model},
                    {"policy", r.policy},
                    {"fitted", r.fitted},
                    {"measured_us", r.measuredUs},
                    {"calibrated_us", r.calibratedUs},
                    {"analytic_us", r.analyticUs},
                    {"calibrated_error", r.calibratedError()},
                    {"analytic_error", r.analyticError()}});
  }
  Json misranked = Json::array();
  for (const auto& m : c.misranked)
    misranked.push_back(
        {{"model", m.model}, {"faster", m.faster}, {"slower", m.slower}, {"measured_ratio", m.measuredRatio}});
  return Json{{"lease", lease},
              {"device", c.calibration.device},
              {"calibration", Json::parse(sim::calibrationToJson(c.calibration))},
              {"runs", std::move(runs)},
              {"held_out",
               {{"runs", c.judged},
                {"all_fitted", c.allFitted},
                {"median_abs_error", c.medianAbsError},
                {"max_abs_error", c.maxAbsError},
                {"analytic_median_abs_error", c.analyticMedianAbsError},
                {"misranked", std::move(misranked)}}}};
}

void printText(const pipeline::LeaseCalibration& c, const std::string& lease) {
  const sim::Calibration& k = c.calibration;
  fmt::print("calibration of {} from {}: rTask gap {:.2f} us, launch {:.2f} us, barrier {:.2f} us, ", k.device,
             k.source, k.taskGapUs, k.launchUs, k.barrierUs);
  if (k.dispatchSamples > 0)
    fmt::print("ready-queue dispatch {:.2f} us and hand-off {:.2f} us, ", k.dispatchUs, k.queueHandoffUs);
  fmt::print("{} variants and {} families fitted\n", k.variants.size(), k.families.size());
  fmt::print("{:<36} {:>6} {:>12} {:>12} {:>8} {:>12} {:>8}\n", "run", "fitted", "measured us", "calibrated", "error",
             "analytic", "error");
  for (const auto& r : c.runs) {
    if (!r.skipped.empty()) {
      fmt::print("{:<36} skipped: {}\n", r.key, r.skipped);
      continue;
    }
    fmt::print("{:<36} {:>6} {:>12.1f} {:>12.1f} {:>+7.0f}% {:>12.1f} {:>+7.0f}%\n", r.key, r.fitted ? "yes" : "",
               r.measuredUs, r.calibratedUs, 100 * r.calibratedError(), r.analyticUs, 100 * r.analyticError());
  }
  fmt::print("{} runs {} ({}): median |error| {:.1f}% (analytic {:.1f}%), largest {:.1f}%; {} policy pairs misranked\n",
             c.judged, c.allFitted ? "judged, all of them fitted" : "held out", lease, 100 * c.medianAbsError,
             100 * c.analyticMedianAbsError, 100 * c.maxAbsError, c.misranked.size());
  for (const auto& m : c.misranked)
    fmt::print("  {}: {} measured {:.2f}x faster than {}, predicted slower or equal\n", m.model, m.faster,
               m.measuredRatio, m.slower);
}

int runCalibrate(const CalibrateOptions& o, const GlobalOptions& global) {
  Progress progress(global);
  pipeline::LeaseCalibrationOptions lo;
  lo.lease = o.lease;
  for (const std::string& m : o.models) lo.modelFolders.emplace_back(m);
  lo.fitPolicies = o.fit;
  lo.progress = [&progress](size_t done, size_t total) {
    progress.steps("rebuilding the measured plans", done, total);
  };
  auto c = pipeline::calibrateLease(lo);
  if (!c) throwDiagnostics(c.errors(), o.lease);
  if (!o.output.empty()) {
    std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
    out << sim::calibrationToJson(c->calibration);
    if (!out) throw CliError("cannot write " + o.output);
  }
  if (o.json)
    fmt::print("{}\n", toJson(*c, o.lease).dump(2));
  else
    printText(*c, o.lease);
  if (!o.output.empty() && !o.json) fmt::print("wrote {}\n", o.output);
  return 0;
}

}  // namespace

Command addCalibrateCommand(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Fit the cost model to a lease's measured GPU runs and report its prediction error per run");
  cmd->add_option("LEASE", opts->lease, "Lease folder (runs/MODEL.POLICY.trace.json.xz and .run.json.xz)")->required();
  cmd->add_option("--models", opts->models, "Folders holding the runs' models (MODEL.onnx or MODEL/model.onnx)")
      ->delimiter(',');
  cmd->add_option("--fit", opts->fit, "Fit on the runs of these policies only (comma-separated); predict the rest")
      ->delimiter(',');
  cmd->add_option("-o,--output", opts->output, "Write the calibration JSON here");
  cmd->add_flag("--json", opts->json, "Print one JSON object instead of text");
  return Command{cmd, [opts, &global] { return runCalibrate(*opts, global); }};
}

}  // namespace rammer::cli
