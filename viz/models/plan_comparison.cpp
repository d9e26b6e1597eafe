#include "viz/models/plan_comparison.h"

#include "core/sim/plan_figures.h"

namespace rammer::viz {

PlanSummary summarizePolicy(const std::shared_ptr<const ir::Graph>& graph, const std::string& device,
                            const std::string& policy, const JobControl& control) {
  PipelineRequest q;
  q.from = PipelineStage::Schedule;
  q.to = PipelineStage::Simulate;
  q.policy = policy;
  q.device = device;
  q.optimized = graph;
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
  return s;
}

PlanComparison comparePolicies(const std::shared_ptr<const ir::Graph>& graph, const std::string& device,
                               const std::string& policyA, const std::string& policyB, const JobControl& control) {
  PlanComparison c;
  c.a = summarizePolicy(graph, device, policyA, control);
  if (control.cancelled()) return c;
  c.b = summarizePolicy(graph, device, policyB, control);
  return c;
}

}  // namespace rammer::viz
