#pragma once
// Plans of the same model side by side (every policy), for the Compare
// window: core/pipeline/policy_comparison.h computes them, as it does for
// `rammer compare`; this adds the studio's cost model. A
// pure function of its inputs; runs on any thread. Qt Core only.
#include <memory>
#include <string>
#include <vector>

#include "core/pipeline/policy_comparison.h"
#include "core/schedule/policy_registry.h"
#include "viz/models/studio_pipeline.h"

namespace rammer::viz {

// One policy's plan, prediction and figures (sim::PlanFigures), or why it failed.
using PlanSummary = pipeline::PolicyRun;

// The model as the session holds it: as imported, and as optimized for
// `optimizedFor`. A policy that fuses epilogues otherwise (IOS and
// GraphTurbo do not, the others do: pipeline::EpilogueFusion::Auto) plans
// the imported graph optimized again.
struct ComparedModel {
  std::shared_ptr<const ir::Graph> original, optimized;
  schedule::PolicyId optimizedFor = schedule::kDefaultPolicy;
  // The session's choices every policy plans with: fusion modes, IOS's and
  // GraphTurbo's options (its policy, device, batch and edits are not used).
  pipeline::PlanChoices choices;
};

// `device` is a preset id or device JSON path.
PlanSummary summarizePolicy(const ComparedModel& model, const std::string& device, schedule::PolicyId policy,
                            const pipeline::Control& control = {});
// Every one of `policies`, in order (stops early on a cancel).
std::vector<PlanSummary> summarizePolicies(const ComparedModel& model, const std::string& device,
                                           const std::vector<schedule::PolicyId>& policies,
                                           const pipeline::Control& control = {});

}  // namespace rammer::viz
