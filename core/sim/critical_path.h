#pragma once
// The critical path of a trace (issue #45 item 1): the chain of rTasks that
// ends with the trace's last one, each preceded by the producer rTask that
// finished last before it started. Its length splits four ways:
//   compute    the path's rTasks running;
//   hand-off   a producer's end to its consumer's start while the
//              consumer's vEU had nothing else to do (barrier latency);
//   queueing   the consumer's vEU still running other work after its
//              producers had finished: what a critical-path order removes;
//   launch     a program boundary on the path (and the time before the
//              path's first rTask that its vEU did not spend on other work).
// The four add up to the last rTask's end. Predicted and measured traces
// alike: the plan only supplies which operators feed which, matched to the
// trace's operators by name.
#include <cstddef>
#include <vector>

#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::sim {

// One rTask of the path and the wait before it.
struct CriticalLink {
  size_t task = 0;  // index into Trace::tasks
  double handoffUs = 0, queueUs = 0, launchUs = 0;
  bool handoff = false;  // follows a producer in its own program (counted in CriticalPath::handoffs)
};

struct CriticalPath {
  std::vector<CriticalLink> links;  // first to last
  double lengthUs = 0;              // the last rTask's end
  double computeUs = 0, handoffUs = 0, queueUs = 0, launchUs = 0;
  size_t operators = 0;  // distinct operators on the path
  size_t handoffs = 0;   // links that follow a producer in the same program
  size_t queued = 0;     // links whose rTask waited behind other work

  bool empty() const { return links.empty(); }
  // A part's share of the length, 0..1.
  double share(double us) const { return lengthUs > 0 ? us / lengthUs : 0.0; }
  // The q-quantile (0..1, nearest rank) of the hand-off links' handoffUs:
  // the hand-off microbenchmark's median and p99. 0 without hand-offs.
  double handoffQuantileUs(double q) const;
};

CriticalPath criticalPath(const schedule::Plan& plan, const Trace& trace);

}  // namespace rammer::sim
