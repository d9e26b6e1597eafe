#pragma once
// Opening a measured trace beside a plan (File > Open Measured Trace): the
// lease recorder's trace (xz or JSON, sim::loadMeasuredTrace) read and its
// rTasks matched to the plan's operators (sim::alignToPlan). A pure
// function the session runs on its job runner, off the UI thread; the
// session only applies the result.
#include <memory>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::viz {

struct OpenedMeasuredTrace {
  std::vector<ir::Diagnostic> errors;       // the file could not be read
  std::shared_ptr<const sim::Trace> trace;  // aligned to the plan
  size_t dropped = 0;                       // rTasks of operators the plan lacks
};

OpenedMeasuredTrace openMeasuredTraceFor(const std::string& file, const schedule::Plan& plan);

}  // namespace rammer::viz
