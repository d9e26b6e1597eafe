#pragma once
// What a person chooses about a plan, as every driver asks for it: the
// CLI's --policy, --device, --schedule, --batch, --fuse-attention,
// --fuse-epilogues, --ios-* and --gt-* options and the studio's controls
// fill this one struct, and optionsFor() is the one translation into the
// pipeline's Options, so a new choice is added here once and reaches every
// driver (issue #29 item 4).
#include <cstdint>
#include <memory>
#include <string>

#include "core/pipeline/pipeline.h"

namespace rammer::pipeline {

struct PlanChoices {
  schedule::PolicyId policy = schedule::kDefaultPolicy;
  std::string device = "h100";  // preset id or device JSON path
  std::string scheduleFile;     // schedule edits (docs/SCHEDULE_EDITS.md); empty: `constraints`
  schedule::Constraints constraints;  // edits held in memory (the studio's), when there is no file
  int64_t batch = 0;                  // symbolic batch dims; 0: 1 (the paper's batch)
  schedule::IosOptions ios;           // --policy ios: r, s, variant, programs
  schedule::GraphTurboOptions graphturbo;  // --policy graphturbo: order, budget
  AttentionFusion attention = AttentionFusion::Auto;
  EpilogueFusion epilogues = EpilogueFusion::Auto;
  // The rTask times the policy plans and the simulator predicts with; null:
  // the analytic cost model.
  std::shared_ptr<const sim::CostModel> costModel;
  // Compile the plan's CUDA while scheduling and plan again while it spills
  // (register_fit.h): what a plan to compile, run or export for a GPU asks.
  bool fitRegisters = false;
  // Programs predicted slower than their operators as launches planned as
  // launches (launch_choice.h); `--keep-persistent` turns it off.
  bool launchFallback = true;
  // Recurrent cells may keep their weights in shared memory across steps
  // where the cost model predicts it faster (resident_choice.h);
  // `--reload-weights` turns it off.
  bool residentCells = true;
};

// The pipeline's options for planning `modelPath` as `choices` say; the
// Run stage's options keep their defaults.
Options optionsFor(const std::string& modelPath, const PlanChoices& choices);

// The policies' own options (IOS, GraphTurbo), the fusion modes, the
// launch fallback and the resident cells: what
// shapes a plan beyond its policy, device, batch and edits, which the
// studio keeps beside its other settings and hands to the Compare window.
// Between PlanChoices and Options alike (the fields have the same names).
template <class To, class From>
void copyPolicyOptions(To& to, const From& from) {
  to.ios = from.ios;
  to.graphturbo = from.graphturbo;
  to.attention = from.attention;
  to.epilogues = from.epilogues;
  to.launchFallback = from.launchFallback;
  to.residentCells = from.residentCells;
}
template <class A, class B>
bool samePolicyOptions(const A& a, const B& b) {
  return a.ios == b.ios && a.graphturbo == b.graphturbo && a.attention == b.attention && a.epilogues == b.epilogues &&
         a.launchFallback == b.launchFallback && a.residentCells == b.residentCells;
}

}  // namespace rammer::pipeline
