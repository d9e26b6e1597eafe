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

pipeline::Control controlOf(const JobControl& job) {
  pipeline::Control c;
  c.cancel = job.cancel;
  c.progress = [&job](const std::string& what, int percent) { job.report(QString::fromStdString(what), percent); };
  return c;
}

}  // namespace

PlanSummary summarizePolicy(const ComparedModel& model, const std::string& device, const std::string& policy,
                            const JobControl& control) {
  return pipeline::planWithPolicy(optionsOf(model, device), givenOf(model), model.optimizedFor, policy, controlOf(control));
}

std::vector<PlanSummary> summarizePolicies(const ComparedModel& model, const std::string& device,
                                           const std::vector<std::string>& policies, const JobControl& control) {
  return pipeline::planEveryPolicy(optionsOf(model, device), givenOf(model), model.optimizedFor, policies,
                                   controlOf(control));
}

}  // namespace rammer::viz
