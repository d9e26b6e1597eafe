#include "viz/models/studio_pipeline.h"

#ifdef RAMMER_HAVE_PROFILER
#include "profiler/run_metrics.h"
#endif

namespace rammer::viz {

QString stageLabel(PipelineStage stage) {
  const std::string_view name = pipeline::stageName(stage);
  return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

bool PipelineResult::done(PipelineStage stage) const {
  return lastDone && stage >= request.from && stage <= *lastDone;
}

namespace {

#ifdef RAMMER_HAVE_PROFILER
// CUPTI metrics of the plan (SM efficiency, warp activity, active cycles),
// time-weighted over its launches. A profile that fails is a warning: the
// run itself succeeded.
std::vector<ir::Diagnostic> profileWithCupti(const runtime::ProbeOptions& libraries, const schedule::Plan& plan,
                                             const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                                             pipeline::RunRecord& record) {
  std::vector<ir::Diagnostic> out;
  profiler::ProfileOptions options;
  options.probe.cuda = libraries;
  auto metrics = profiler::measureRunMetrics(plan, graph, inputs, options);
  if (!metrics) {
    for (ir::Diagnostic d : metrics.errors()) {
      d.severity = ir::Severity::Warning;
      d.message = "CUPTI profile failed: " + d.message;
      out.push_back(std::move(d));
    }
    return out;
  }
  const profiler::RunMetrics& m = *metrics;
  auto put = [&record](const char* name, const profiler::MetricValue& v) {
    record.metrics.emplace_back(std::string(v.measured ? "cupti_" : "estimated_") + name, v.value);
  };
  if (m.totalWeightUs > 0) {
    put("sm_efficiency_pct", m.smEfficiencyPct);
    put("warp_activity_pct", m.warpActivityPct);
    put("sm_cycles_active", m.smCyclesActive);
  }
  auto note = [&out](std::string message) {
    ir::Diagnostic d;
    d.severity = ir::Severity::Note;
    d.message = std::move(message);
    out.push_back(std::move(d));
  };
  if (!m.timestampsNote.empty()) note("kernel times: " + m.timestampsNote);
  if (!m.countersNote.empty()) note("counters: " + m.countersNote);
  note("profiled " + std::to_string(m.programs.size()) + " launch(es) with CUPTI" +
       (m.smEfficiencyPct.measured ? "" : " (some metrics are estimates)"));
  return out;
}
#endif

pipeline::Options optionsOf(const PipelineRequest& q) {
  pipeline::Options o = pipeline::optionsFor(q.modelPath, q.plan);
  if (!o.costModel) o.costModel = studioCostModel();
  pipeline::RunOptions& run = o.run;
  run.target = q.runTarget;
  run.inputSeed = q.inputSeed;
  run.checkOutputs = q.checkOutputs;
  run.capability = q.capability;
  run.libraries = q.libraries;
#ifdef RAMMER_HAVE_PROFILER
  if (q.profile) {
    run.profileGpu = [libraries = q.libraries](const schedule::Plan& plan, const ir::Graph& graph,
                                               const std::vector<ir::Tensor>& inputs, pipeline::RunRecord& record) {
      return profileWithCupti(libraries, plan, graph, inputs, record);
    };
  }
#endif
  return o;
}

pipeline::Artifacts givenOf(const PipelineRequest& q) {
  pipeline::Artifacts a;
  a.original = q.original;
  a.optimized = q.optimized;
  a.optimizedFused = q.optimizedFused;
  a.passLog = q.passLog;
  a.plan = q.planned;
  return a;
}

}  // namespace

std::shared_ptr<const sim::CostModel> studioCostModel() { return pipeline::defaultCostModel(); }

PipelineResult runPipeline(PipelineRequest request, const JobControl& control) {
  pipeline::Control c;
  c.cancel = control.cancel;
  c.progress = [&control](const std::string& what, int percent) {
    control.report(QString::fromStdString(what), percent);
  };
  pipeline::StagesResult staged =
      pipeline::runStages(optionsOf(request), givenOf(request), request.from, request.to, c);
  pipeline::Artifacts& a = staged.artifacts;
  pipeline::Report& report = staged.report;

  PipelineResult r;
  request.from = report.from;
  request.to = report.to;
  r.request = std::move(request);
  r.cancelled = report.cancelled;
  r.failedStage = report.failedStage;
  r.lastDone = report.lastDone;
  r.log = std::move(report.log);
  for (ir::Diagnostic& d : report.diagnostics) {
    const PipelineStage stage = pipeline::stageNamed(d.stage).value_or(report.failedStage.value_or(report.from));
    r.diagnostics.push_back({stage, std::move(d)});
  }
  r.original = std::move(a.original);
  r.optimized = std::move(a.optimized);
  r.optimizedFused = std::move(a.optimizedFused);
  r.passLog = std::move(a.passLog);
  r.plan = std::move(a.plan);
  r.validation = std::move(a.validation);
  r.predicted = std::move(a.predicted);
  if (a.run) {
    r.backend = a.run->backend;
    r.measured = a.run->trace;
    r.runLabel = a.run->label;
    r.runMetrics = a.run->metrics;
  }
  return r;
}

}  // namespace rammer::viz
