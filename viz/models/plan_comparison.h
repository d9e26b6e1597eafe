#pragma once
// Two plans of the same model side by side (e.g. RammerBase's sequential
// against Rammer's wavefront): each scheduled, validated and simulated
// through the same pipeline stages the session runs, with the numbers the
// Compare window tabulates. A pure function of its inputs; runs on any
// thread. Qt Core only.
#include <memory>
#include <string>
#include <vector>

#include "viz/models/studio_pipeline.h"

namespace rammer::viz {

struct PlanSummary {
  std::string policy;
  bool ok = false;
  std::vector<StudioDiagnostic> diagnostics;  // why it failed, when it did
  std::shared_ptr<const schedule::Plan> plan;
  std::shared_ptr<const sim::Trace> trace;
  double latencyUs = 0;     // predicted
  double smEfficiency = 0;  // predicted, [0, 1]
  size_t programs = 0;
  int maxVEUs = 0;          // the widest program's vEUs
  size_t barriers = 0;
  size_t rtasks = 0;
};

struct PlanComparison {
  PlanSummary a, b;
  // Predicted latency of A over B (> 1: B is faster); 0 when either failed.
  double ratio() const { return a.ok && b.ok && b.latencyUs > 0 ? a.latencyUs / b.latencyUs : 0; }
};

// `graph` is the optimized graph; `device` a preset id or device JSON path.
PlanSummary summarizePolicy(const std::shared_ptr<const ir::Graph>& graph, const std::string& device,
                            const std::string& policy, const JobControl& control = {});
PlanComparison comparePolicies(const std::shared_ptr<const ir::Graph>& graph, const std::string& device,
                               const std::string& policyA, const std::string& policyB, const JobControl& control = {});

}  // namespace rammer::viz
