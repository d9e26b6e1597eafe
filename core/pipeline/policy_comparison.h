#pragma once
// Every policy's plan of one model, side by side: what `rammer compare`
// prints and the studio's Compare window shows, computed in one place
// (issue #29 item 4). The model is imported and optimized once; each policy
// then runs Schedule, Validate and Simulate on that graph, except where it
// fuses epilogues differently from the policy the graph was optimized for
// (EpilogueFusion::Auto: IOS and GraphTurbo do not, the others do), which
// optimizes the imported graph again.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/pipeline/pipeline.h"
#include "core/sim/plan_figures.h"

namespace rammer::pipeline {

struct PolicyRun {
  schedule::PolicyId policy = schedule::kDefaultPolicy;
  Report report;  // the stages' diagnostics; errors when it failed
  std::shared_ptr<const schedule::Plan> plan;
  std::shared_ptr<const sim::Trace> predicted;
  sim::PlanFigures figures;  // of `plan` and `predicted`, when ok()
  double scheduleSeconds = 0;
  std::optional<bool> attentionFused;  // when attention fusion was weighed both ways
  bool ok() const { return report.ok() && plan && predicted; }
};

// `options` name the model, device and choices (its policy is replaced);
// `given` holds the graph as imported and as optimized for `optimizedFor`.
PolicyRun planWithPolicy(Options options, const Artifacts& given, schedule::PolicyId optimizedFor,
                         schedule::PolicyId policy, const Control& control = {});

// Each of `policies` in order; stops early on a cancel.
std::vector<PolicyRun> planEveryPolicy(const Options& options, const Artifacts& given,
                                       schedule::PolicyId optimizedFor, const std::vector<schedule::PolicyId>& policies,
                                       const Control& control = {});

// Why `run` failed: its first error, formatted ("failed" when it has none);
// empty when it planned.
std::string failureText(const PolicyRun& run);

// Sequential's (RammerBase's) predicted latency over `run`'s; nullopt where
// either plan is missing.
std::optional<double> speedupOverSequential(const std::vector<PolicyRun>& all, const PolicyRun& run);

}  // namespace rammer::pipeline
