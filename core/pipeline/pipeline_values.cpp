// What a request leaves (pipeline.h's Artifacts and Report): which values
// a stage's rerun drops, and what a report says of the stages it ran.
#include <algorithm>

#include "core/pipeline/pipeline.h"
#include "core/schedule/policy_registry.h"
#include "core/sim/analytic_cost_model.h"

namespace rammer::pipeline {

std::shared_ptr<const sim::CostModel> defaultCostModel() {
  static const auto model = std::make_shared<const sim::AnalyticCostModel>();
  return model;
}

bool fusesEpilogues(EpilogueFusion mode, schedule::PolicyId policy) {
  if (mode != EpilogueFusion::Auto) return mode == EpilogueFusion::Fused;
  return !schedule::policyInfo(policy).rewritesOperators;
}

void Artifacts::resetFrom(Stage stage) {
  auto drops = [stage](Stage s) { return stageDependsOn(s, stage); };
  if (drops(Stage::Import)) original.reset();
  if (drops(Stage::Optimize)) {
    optimized.reset();
    optimizedFused.reset();
    passLog.clear();
  }
  if (drops(Stage::Schedule)) {
    plan.reset();
    scheduleSeconds = 0;
    attention.reset();
    launches.reset();
    residentCells.reset();
    registerFit.reset();
  }
  if (drops(Stage::Validate)) validation.reset();
  if (drops(Stage::Simulate)) predicted.reset();
  if (drops(Stage::Run)) run.reset();
  if (drops(Stage::Generate)) generated.reset();
  if (drops(Stage::Compile)) compiled.reset();
  if (drops(Stage::Export)) exported.reset();
}

bool Report::done(Stage stage) const {
  if (!lastDone) return false;
  const std::vector<Stage> ran = stagesBetween(from, *lastDone);
  return std::find(ran.begin(), ran.end(), stage) != ran.end();
}

std::vector<ir::Diagnostic> Report::errors() const {
  std::vector<ir::Diagnostic> out;
  for (const auto& d : diagnostics)
    if (d.severity == ir::Severity::Error) out.push_back(d);
  return out;
}

}  // namespace rammer::pipeline
