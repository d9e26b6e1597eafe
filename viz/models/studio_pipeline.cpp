#include "viz/models/studio_pipeline.h"

#ifdef RAMMER_HAVE_PROFILER
#include "profiler/run_metrics.h"
#endif

namespace rammer::viz {

QString stageLabel(PipelineStage stage) {
  const std::string_view name = pipeline::stageName(stage);
  return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

PipelineStage stageOf(const ir::Diagnostic& d, PipelineStage otherwise) {
  return pipeline::stageNamed(d.stage).value_or(otherwise);
}

namespace {

#ifdef RAMMER_HAVE_PROFILER
// CUPTI metrics of the plan (SM efficiency, warp activity, active cycles),
// time-weighted over its launches. A profile that fails is a warning: the
// run itself succeeded.
std::vector<ir::Diagnostic> profileWithCupti(const schedule::Plan& plan, const ir::Graph& graph,
                                             const std::vector<ir::Tensor>& inputs,
                                             const runtime::ProbeOptions& libraries, pipeline::RunRecord& record) {
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

}  // namespace

pipeline::Options studioOptions(const std::string& modelPath, const pipeline::PlanChoices& choices) {
  pipeline::Options o = pipeline::optionsFor(modelPath, choices);
  if (!o.costModel) o.costModel = studioCostModel();
#ifdef RAMMER_HAVE_PROFILER
  o.run.profileGpu = profileWithCupti;
#endif
  return o;
}

std::shared_ptr<const sim::CostModel> studioCostModel() { return pipeline::defaultCostModel(); }

PipelineResult runPipeline(PipelineRequest request, const pipeline::Control& control) {
  pipeline::StagesResult staged =
      pipeline::runStages(request.options, std::move(request.given), request.from, request.to, control);
  request.given = {};
  request.from = staged.report.from;
  request.to = staged.report.to;
  return PipelineResult{std::move(request), std::move(staged.report), std::move(staged.artifacts)};
}

}  // namespace rammer::viz
