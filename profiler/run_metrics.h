#pragma once
// The hardware metrics of a plan's run, as `rammer run --metrics` and the
// studio's Compile & Run show them: per launch (= rProgram) SM efficiency,
// warp activity and active cycles, each with where it came from (the CUPTI
// range profiler, an estimate from rTask timestamps / occupancy, or
// "unavailable: REASON"), plus totals over the launches weighted by their
// kernel time. One place, so the CLI and the GUI report the same numbers.
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"
#include "profiler/profile_session.h"

namespace rammer::profiler {

struct LaunchMetrics {
  int32_t program = -1;
  std::string kernel;  // empty when the profile did not get as far
  double weightUs = 0;  // CUPTI kernel time, else the rTask span
  MetricValue smEfficiencyPct;
  MetricValue warpActivityPct;
  MetricValue smCyclesActive;
};

struct RunMetrics {
  // Non-empty: why there are no numbers at all; every value's source is then
  // "unavailable: " + this.
  std::string unavailable;
  std::string timestampsNote;  // what gave the kernel times, or why nothing did
  std::string countersNote;    // what gave the counters, or why nothing did
  std::vector<LaunchMetrics> programs;
  // SM efficiency and warp activity weighted by each launch's weightUs; the
  // active cycles summed. `measured` only when every launch's value was; the
  // source is the launches' common one, else "mixed: ..." naming them.
  MetricValue smEfficiencyPct;
  MetricValue warpActivityPct;
  MetricValue smCyclesActive;
  double totalWeightUs = 0;  // the launches' weightUs summed (0: no totals)

  bool available() const { return unavailable.empty(); }
  // True when the totals are all CUPTI counters.
  bool allMeasured() const {
    return available() && smEfficiencyPct.measured && warpActivityPct.measured && smCyclesActive.measured;
  }
};

// The per-launch metrics of a finished profile and their totals.
RunMetrics summarizeProfile(const ProfileResult& profile);

// One row per program of `plan`, every value "unavailable: " + `reason`
// (a run whose profile failed still says so launch by launch).
RunMetrics unavailableRunMetrics(const schedule::Plan& plan, const std::string& reason);

// Profiles `plan` (a copy: the caller's plan keeps its register counts) with
// profilePlan and summarizes it. Errors are profilePlan's.
ir::Result<RunMetrics> measureRunMetrics(const schedule::Plan& plan, const ir::Graph& graph,
                                         const std::vector<ir::Tensor>& inputs, const ProfileOptions& options = {});

}  // namespace rammer::profiler
