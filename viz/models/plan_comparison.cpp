#include "viz/models/plan_comparison.h"

#include <algorithm>

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
  s.latencyUs = s.trace->totalUs;
  s.smEfficiency = s.trace->smEfficiency;
  s.programs = s.plan->programs.size();
  s.rtasks = s.plan->numRTasks();
  for (const auto& info : s.plan->programs) {
    s.maxVEUs = std::max(s.maxVEUs, info.program.numVEUs());
    s.barriers += info.program.numBarriers();
  }
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
