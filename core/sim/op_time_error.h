#pragma once
// Where a prediction is furthest from a measurement (issue #28 item 4): per
// operator, matched by name between a predicted trace and a measured one,
// the mean time of one rTask in each. A measured trace may come from another
// plan of the model (an older commit, another policy's rKernels), so each
// row says which rKernel and how many rTasks each side ran: a ratio across
// different rKernels compares code, not the cost model.
#include <string>
#include <vector>

#include "core/sim/trace.h"

namespace rammer::sim {

struct OpTimeError {
  std::string op;
  std::string predictedKernel, measuredKernel;
  size_t predictedRTasks = 0, measuredRTasks = 0;
  double predictedUs = 0;  // mean duration of one rTask
  double measuredUs = 0;
  bool sameKernel() const { return predictedKernel == measuredKernel && predictedRTasks == measuredRTasks; }
  // predicted / measured; < 1: the model is optimistic.
  double ratio() const { return measuredUs > 0 ? predictedUs / measuredUs : 0; }
};

struct OpTimeComparison {
  std::vector<OpTimeError> ops;  // furthest first (|log ratio|), same-rKernel rows before the others
  size_t onlyPredicted = 0;      // ops with rTasks in the prediction that the measurement lacks
  size_t onlyMeasured = 0;
};

OpTimeComparison compareOpTimes(const Trace& predicted, const Trace& measured);

}  // namespace rammer::sim
