#include "viz/models/plan_comparison.h"

#include "core/pipeline/pipeline.h"
#include "core/sim/plan_figures.h"

namespace rammer::viz {

PlanSummary summarizePolicy(const ComparedModel& model, const std::string& device, const std::string& policy,
                            const JobControl& control) {
  PipelineRequest q;
  using pipeline::EpilogueFusion;
  const bool reoptimize = model.original && pipeline::fusesEpilogues(EpilogueFusion::Auto, policy) !=
                                                pipeline::fusesEpilogues(EpilogueFusion::Auto, model.optimizedFor);
  q.from = reoptimize ? PipelineStage::Optimize : PipelineStage::Schedule;
  q.to = PipelineStage::Simulate;
  q.policy = policy;
  q.device = device;
  q.original = model.original;
  if (!reoptimize) q.optimized = model.optimized;
  PipelineResult r = runPipeline(std::move(q), control);

  PlanSummary s;
  s.policy = policy;
  s.ok = r.ok() && r.plan && r.predicted;
  s.diagnostics = std::move(r.diagnostics);
  if (!s.ok) return s;
  s.plan = r.plan;
  s.trace = r.predicted;
  const sim::PlanFigures f = sim::figuresOf(*s.plan, s.trace.get());
  s.latencyUs = f.predictedUs;
  s.smEfficiency = f.smEfficiency;
  s.programs = f.programs;
  s.rtasks = f.rtasks;
  s.maxVEUs = f.maxVEUs;
  s.barriers = f.barriers;
  s.dramBytes = f.dramBytes;
  return s;
}

std::vector<PlanSummary> summarizePolicies(const ComparedModel& model, const std::string& device,
                                           const std::vector<std::string>& policies, const JobControl& control) {
  std::vector<PlanSummary> out;
  for (const std::string& p : policies) {
    if (control.cancelled()) break;
    out.push_back(summarizePolicy(model, device, p, control));
  }
  return out;
}

double speedupOverSequential(const std::vector<PlanSummary>& all, const PlanSummary& s) {
  for (const PlanSummary& base : all)
    if (base.policy == "sequential" && base.ok && s.ok && s.latencyUs > 0) return base.latencyUs / s.latencyUs;
  return 0;
}

}  // namespace rammer::viz
