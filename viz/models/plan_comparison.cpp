#include "viz/models/plan_comparison.h"

namespace rammer::viz {

namespace {

pipeline::Options optionsOf(const ComparedModel& model, const std::string& device) {
  pipeline::PlanChoices c;
  pipeline::copyPolicyOptions(c, model.choices);
  c.device = device;
  c.costModel = studioCostModel();
  return pipeline::optionsFor({}, c);
}

pipeline::Artifacts givenOf(const ComparedModel& model) {
  pipeline::Artifacts a;
  a.original = model.original;
  a.optimized = model.optimized;
  return a;
}

}  // namespace

PlanSummary summarizePolicy(const ComparedModel& model, const std::string& device, schedule::PolicyId policy,
                            const pipeline::Control& control) {
  return pipeline::planWithPolicy(optionsOf(model, device), givenOf(model), model.optimizedFor, policy, control);
}

std::vector<PlanSummary> summarizePolicies(const ComparedModel& model, const std::string& device,
                                           const std::vector<schedule::PolicyId>& policies,
                                           const pipeline::Control& control) {
  return pipeline::planEveryPolicy(optionsOf(model, device), givenOf(model), model.optimizedFor, policies,
                                   control);
}

}  // namespace rammer::viz
