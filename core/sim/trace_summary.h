#pragma once
// What a stretch of a trace holds: for the GUI's area selection and the
// CLI's summaries. Events are clipped to the window [startUs, endUs) and,
// when `veus` is given, to those vEU lanes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/sim/trace.h"

namespace rammer::sim {

struct OpSummary {
  int32_t op = -1;  // index into Trace::opNames
  std::string name, type, kernel;
  size_t rtasks = 0;         // rTasks overlapping the window
  double firstStartUs = 0;   // unclipped
  double lastEndUs = 0;      // unclipped
  double busyVeuUs = 0;      // rTask time inside the window, summed over vEUs
};

struct TraceSummary {
  double startUs = 0, endUs = 0;
  size_t rtasks = 0, barriers = 0;  // events overlapping the window
  double busyVeuUs = 0;             // rTask time inside the window, summed over vEUs
  double barrierWaitVeuUs = 0;      // barrier waits inside the window, summed over vEUs
  // Busy SM-time inside the window over SMs x window (all SMs, whatever
  // the lane selection: the share of the device the selection kept busy).
  double smEfficiency = 0;
  std::vector<OpSummary> ops;       // by busyVeuUs, largest first
};

TraceSummary summarizeTrace(const Trace& trace, double startUs, double endUs, const std::vector<int32_t>& veus = {});
// The whole trace.
inline TraceSummary summarizeTrace(const Trace& trace) { return summarizeTrace(trace, 0, trace.totalUs); }

}  // namespace rammer::sim
