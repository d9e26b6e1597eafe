#include "core/pipeline/lease_calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/device/device_spec.h"
#include "core/pipeline/pipeline.h"
#include "core/schedule/policy_registry.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/measured_plan.h"
#include "core/sim/measured_trace.h"
#include "core/sim/profile_db.h"
#include "core/sim/simulator.h"

namespace rammer::pipeline {

namespace {

namespace fs = std::filesystem;

constexpr const char* kTraceSuffix = ".trace.json.xz";

// One run as it is rebuilt.
struct Run {
  LeaseRunResult result;
  sim::Trace trace;
  schedule::Plan plan;  // where and in what order its rTasks ran
  // A dynamic run's program (the ready queue places the rTasks when it is
  // simulated); a static run is predicted from `plan`.
  std::optional<schedule::Plan> dynamic;
  bool dispatched() const { return schedule::findPolicy(result.policy) == schedule::PolicyId::Dynamic; }
};

// The uninstrumented median latency in `runJson` (xz or plain).
std::optional<double> measuredLatency(const fs::path& runJson) {
  auto text = sim::readPossiblyXz(runJson, size_t{64} << 20, "run record");
  if (!text) return std::nullopt;
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.contains("latency_us") || !j["latency_us"].contains("median") ||
      !j["latency_us"]["median"].is_number() || !(j["latency_us"]["median"].get<double>() > 0))
    return std::nullopt;
  return j["latency_us"]["median"].get<double>();
}

std::optional<fs::path> findModel(const std::string& model, const std::vector<fs::path>& folders) {
  for (const fs::path& f : folders)
    for (const fs::path& p : {f / (model + ".onnx"), f / model / "model.onnx"})
      if (std::error_code ec; fs::is_regular_file(p, ec)) return p;
  return std::nullopt;
}

// Rebuilds `run`'s plan, or says in `skipped` why not.
void rebuild(Run& run, const fs::path& runs, const std::vector<fs::path>& folders, device::DeviceSpec& device) {
  LeaseRunResult& r = run.result;
  const auto model = findModel(r.model, folders);
  if (!model) return void(r.skipped = "its model is in none of the model folders");
  auto trace = sim::loadMeasuredTrace(runs / (r.key + kTraceSuffix));
  if (!trace) return void(r.skipped = trace.errors().front().message);
  run.trace = std::move(trace).value();
  const auto latency = measuredLatency(runs / (r.key + ".run.json.xz"));
  if (!latency) return void(r.skipped = "no latency_us.median in " + r.key + ".run.json.xz");
  r.measuredUs = *latency;
  if (run.trace.device != device.id) {
    auto d = device::loadDevice(run.trace.device);
    if (!d) return void(r.skipped = d.errors().front().message);
    device = std::move(d).value();
  }
  // The graph the lease's build planned: this build's passes (bias, ReLU
  // and residual adds in GEMM epilogues, except under IOS and GraphTurbo;
  // fused recurrent cells), or, for a lease of a build before them
  // (2026-11-26), every op on its own.
  const bool flash = std::any_of(run.trace.kernelNames.begin(), run.trace.kernelNames.end(),
                                 [](const std::string& k) { return k.rfind("attention_flash", 0) == 0; });
  struct Form {
    EpilogueFusion epilogues;
    bool cells;
  };
  const EpilogueFusion thisBuild =
      fusesEpilogues(EpilogueFusion::Auto, schedule::findPolicy(r.policy).value_or(schedule::kDefaultPolicy))
          ? EpilogueFusion::Fused
          : EpilogueFusion::Unfused;
  std::string firstError;
  for (const Form form : {Form{thisBuild, true}, Form{EpilogueFusion::Unfused, false}}) {
    Options o;
    o.modelPath = model->string();
    o.import.batch = 1;  // as the lease ran them
    o.attention = flash ? AttentionFusion::Fused : AttentionFusion::Unfused;
    o.epilogues = form.epilogues;
    o.fuseRecurrentCells = form.cells;
    Pipeline p{o};
    const Report report = p.run(Stage::Import, Stage::Optimize);
    if (!report.ok()) return void(r.skipped = report.errors().empty() ? "cancelled" : report.errors().front().message);
    const auto options = sim::policyOptions(std::make_shared<const sim::AnalyticCostModel>());
    auto plan = sim::planOfMeasuredTrace(run.trace, *p.artifacts().optimized, device, options);
    if (plan && run.dispatched()) {
      auto dynamic = sim::planOfMeasuredTrace(run.trace, *p.artifacts().optimized, device, options,
                                              sim::MeasuredPlanForm::Dynamic);
      if (!dynamic) return void(r.skipped = dynamic.errors().front().message);
      run.dynamic = std::move(dynamic).value();
    }
    if (plan) return void(run.plan = std::move(plan).value());
    if (firstError.empty()) firstError = plan.errors().front().message;
  }
  r.skipped = firstError;
}

}  // namespace

ir::Result<LeaseCalibration> calibrateLease(const LeaseCalibrationOptions& options) {
  const fs::path runsDir = options.lease / "runs";
  if (std::error_code ec; !fs::is_directory(runsDir, ec))
    return ir::makeError(options.lease.string() +
                         ": not a lease folder (no runs/ in it; see tests/data/gpu_traces/README.md)");
  std::vector<Run> runs;
  for (const auto& entry : fs::directory_iterator(runsDir)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(kTraceSuffix)) continue;
    Run run;
    LeaseRunResult& r = run.result;
    r.key = name.substr(0, name.size() - std::char_traits<char>::length(kTraceSuffix));
    const size_t dot = r.key.rfind('.');
    if (dot == std::string::npos || dot == 0) continue;
    r.model = r.key.substr(0, dot);
    r.policy = r.key.substr(dot + 1);
    runs.push_back(std::move(run));
  }
  if (runs.empty()) return ir::makeError(runsDir.string() + ": no MODEL.POLICY" + kTraceSuffix + " in it");
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.result.key < b.result.key; });

  auto first = device::loadDevice("h100");  // until a trace names its card's preset
  if (!first) return first.errors();
  device::DeviceSpec device = std::move(first).value();
  for (size_t i = 0; i < runs.size(); ++i) {
    if (options.progress) options.progress(i, runs.size());
    rebuild(runs[i], runsDir, options.modelFolders, device);
  }

  const std::set<std::string> fitPolicies(options.fitPolicies.begin(), options.fitPolicies.end());
  std::vector<sim::MeasuredRun> fitted;
  for (Run& run : runs) {
    LeaseRunResult& r = run.result;
    if (!r.skipped.empty() || !(fitPolicies.empty() || fitPolicies.count(r.policy))) continue;
    r.fitted = true;
    fitted.push_back(sim::MeasuredRun{r.key, &run.plan, &run.trace, r.measuredUs, run.dispatched()});
  }
  if (fitted.empty()) return ir::makeError("no run of the policies to fit on could be rebuilt; nothing to fit");
  auto fit = sim::fitCalibration(fitted, device);
  if (!fit) return fit.errors();
  std::string policies;
  for (const std::string& p : options.fitPolicies) policies += (policies.empty() ? ": " : ", ") + p;
  fit->source = options.lease.filename().string() + " (" + fit->source + policies + ")";
  for (const Run& run : runs)
    if (run.result.fitted && fit->gpu.empty()) fit->gpu = run.trace.source;

  LeaseCalibration out;
  out.calibration = *fit;
  const sim::Simulator calibrated(
      std::make_shared<const sim::CalibratedCostModel>(std::make_shared<const sim::Calibration>(*fit)));
  const sim::Simulator analytic(std::make_shared<const sim::AnalyticCostModel>());
  out.allFitted =
      std::all_of(runs.begin(), runs.end(), [](const Run& r) { return r.result.fitted || !r.result.skipped.empty(); });
  std::vector<double> errors, analyticErrors;
  std::map<std::string, std::vector<const LeaseRunResult*>> byModel;
  for (Run& run : runs) {
    LeaseRunResult& r = run.result;
    if (r.skipped.empty()) {
      const schedule::Plan& plan = run.dynamic ? *run.dynamic : run.plan;
      auto c = calibrated.run(plan);
      auto a = analytic.run(plan);
      if (!c || !a) return !c ? c.errors() : a.errors();
      r.calibratedUs = c->totalUs;
      r.analyticUs = a->totalUs;
      if (!r.fitted || out.allFitted) {
        errors.push_back(std::abs(r.calibratedError()));
        analyticErrors.push_back(std::abs(r.analyticError()));
      }
    }
    out.runs.push_back(r);
  }
  for (const LeaseRunResult& r : out.runs)
    if (r.skipped.empty() && (!r.fitted || out.allFitted)) byModel[r.model].push_back(&r);
  for (const auto& [model, rs] : byModel)
    for (const LeaseRunResult* a : rs)
      for (const LeaseRunResult* b : rs)
        if (a->measuredUs * 1.1 < b->measuredUs && !(a->calibratedUs < b->calibratedUs))
          out.misranked.push_back(Misranking{model, a->policy, b->policy, b->measuredUs / a->measuredUs});
  out.judged = errors.size();
  out.medianAbsError = sim::summarizeTimes(errors).medianUs;
  out.maxAbsError = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
  out.analyticMedianAbsError = sim::summarizeTimes(analyticErrors).medianUs;
  return out;
}

}  // namespace rammer::pipeline
