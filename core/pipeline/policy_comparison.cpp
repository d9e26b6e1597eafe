#include "core/pipeline/policy_comparison.h"

#include "core/schedule/policy_registry.h"

namespace rammer::pipeline {

PolicyRun planWithPolicy(Options options, const Artifacts& given, schedule::PolicyId optimizedFor,
                         schedule::PolicyId policy, const Control& control) {
  const bool reoptimize = given.original && fusesEpilogues(options.epilogues, policy) !=
                                                fusesEpilogues(options.epilogues, optimizedFor);
  options.policy = policy;
  Artifacts start;
  start.original = given.original;
  if (!reoptimize) {
    start.optimized = given.optimized;
    start.optimizedFused = given.optimizedFused;
    start.passLog = given.passLog;
  }
  StagesResult r = runStages(options, std::move(start), reoptimize ? Stage::Optimize : Stage::Schedule,
                             Stage::Simulate, control);
  PolicyRun run;
  run.policy = policy;
  run.report = std::move(r.report);
  run.plan = std::move(r.artifacts.plan);
  run.predicted = std::move(r.artifacts.predicted);
  if (run.ok()) {
    run.figures = sim::figuresOf(*run.plan, run.predicted.get());
    run.scheduleSeconds = r.artifacts.scheduleSeconds;
    if (r.artifacts.attention) run.attentionFused = r.artifacts.attention->fused;
  }
  return run;
}

std::vector<PolicyRun> planEveryPolicy(const Options& options, const Artifacts& given,
                                       schedule::PolicyId optimizedFor, const std::vector<schedule::PolicyId>& policies,
                                       const Control& control) {
  std::vector<PolicyRun> out;
  for (schedule::PolicyId policy : policies) {
    if (control.cancelled()) break;
    out.push_back(planWithPolicy(options, given, optimizedFor, policy, control));
  }
  return out;
}

std::string failureText(const PolicyRun& run) {
  if (run.ok()) return {};
  const std::vector<ir::Diagnostic> errors = run.report.errors();
  return errors.empty() ? "failed" : ir::formatDiagnostic(errors.front());
}

std::optional<double> speedupOverSequential(const std::vector<PolicyRun>& all, const PolicyRun& run) {
  for (const PolicyRun& base : all)
    if (schedule::policyInfo(base.policy).isBaseline && base.ok() && run.ok() && run.figures.predictedUs > 0)
      return base.figures.predictedUs / run.figures.predictedUs;
  return std::nullopt;
}

}  // namespace rammer::pipeline
