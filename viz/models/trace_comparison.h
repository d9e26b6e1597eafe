#pragma once
// Predicted vs measured: rTasks matched by RTask (op, rTask), each with its
// slip = measured start - predicted start (positive: it ran late). Tasks in
// only one trace are listed, not guessed at; a RTask that appears twice in
// one trace is ambiguous, so its copies are listed as unmatched too.
#include <cstdint>
#include <string>
#include <vector>

#include "core/sim/trace.h"

namespace rammer::viz {

struct TaskSlip {
  schedule::RTask task;
  int32_t predicted = -1;  // index into predicted.tasks
  int32_t measured = -1;   // index into measured.tasks
  double startSlipUs = 0;  // measured start - predicted start
  double durationDeltaUs = 0;  // measured duration - predicted duration
};

struct TraceComparison {
  std::vector<TaskSlip> matched;       // by RTask
  std::vector<int32_t> onlyPredicted;  // predicted task indices without a partner, ascending
  std::vector<int32_t> onlyMeasured;   // measured task indices without a partner, ascending
  // Per task index of each trace: its slip, NaN when unmatched (painting
  // looks a slip up by event).
  std::vector<double> slipOfPredicted;
  std::vector<double> slipOfMeasured;
  double meanSlipUs = 0;
  double meanAbsSlipUs = 0;
  double maxAbsSlipUs = 0;
  double predictedTotalUs = 0;
  double measuredTotalUs = 0;
  // Plain-language problems: op names that differ between the two traces
  // (different plans?), duplicate TaskRefs.
  std::vector<std::string> warnings;

  bool identicalTaskSets() const { return onlyPredicted.empty() && onlyMeasured.empty(); }
};

TraceComparison compareTraces(const sim::Trace& predicted, const sim::Trace& measured);

}  // namespace rammer::viz
