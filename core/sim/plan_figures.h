#pragma once
// The figures people read off a plan (how many rPrograms, rTasks and
// barrier-rTasks, how many vEUs, how many bytes of global-memory traffic)
// and off its prediction (latency, SM efficiency, launch overhead, barrier
// waits). Computed here and nowhere else, so the CLI's summary, the studio's
// status line and metrics, and the policy comparison can never disagree.
#include <cstddef>
#include <vector>

#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::sim {

struct PlanFigures {
  size_t programs = 0;
  size_t rtasks = 0;
  size_t barriers = 0;    // barrier-rTasks over every program
  int maxVEUs = 0;        // the largest program's vDevice
  int maxVEUsPerSM = 0;
  int minVEUsPerSM = 0;
  // Predicted DRAM traffic of the chosen rKernels (bytes): every non-view
  // operator's kernel.dramBytes(), its global-memory traffic less the
  // re-reads expected to hit L2 (a fused group's weights and halos). A
  // schedule that keeps intermediates in shared memory (GraphTurbo's
  // groups) lowers it; ordinary rKernels still charge all of theirs to DRAM.
  double dramBytes = 0;
  // From the predicted trace (0 without one).
  double predictedUs = 0;
  double smEfficiency = 0;       // 0..1: the utilization of the vDevice
  double launchOverheadUs = 0;   // every launch
  double barrierWaitVeuUs = 0;   // summed over vEUs
};

PlanFigures figuresOf(const schedule::Plan& plan, const Trace* predicted = nullptr);

// The program each operator's rTasks run in; -1 for views (no rTasks).
std::vector<int> programOfOps(const schedule::Plan& plan);

}  // namespace rammer::sim
