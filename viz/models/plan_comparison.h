#pragma once
// Plans of the same model side by side (every policy): each scheduled,
// validated and simulated through the same pipeline stages the session
// runs, with the numbers the Compare window tabulates (the figures `rammer
// compare` prints). A pure function of its inputs; runs on any thread. Qt
// Core only.
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
  double dramBytes = 0;     // predicted DRAM traffic of the chosen rKernels
};

// The model as the session holds it: as imported, and as optimized for
// `optimizedFor`. A policy that fuses epilogues otherwise (IOS and
// GraphTurbo do not, the others do: pipeline::EpilogueFusion::Auto) plans
// the imported graph optimized again.
struct ComparedModel {
  std::shared_ptr<const ir::Graph> original, optimized;
  std::string optimizedFor = "wavefront";
};

// `device` is a preset id or device JSON path.
PlanSummary summarizePolicy(const ComparedModel& model, const std::string& device, const std::string& policy,
                            const JobControl& control = {});
// Every one of `policies`, in order (stops early on a cancel).
std::vector<PlanSummary> summarizePolicies(const ComparedModel& model, const std::string& device,
                                           const std::vector<std::string>& policies, const JobControl& control = {});
// Predicted latency of sequential (RammerBase) over each summary's; 0 where
// either plan is missing.
double speedupOverSequential(const std::vector<PlanSummary>& all, const PlanSummary& s);

}  // namespace rammer::viz
