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
#include "viz/models/side_job_report.h"

namespace rammer::viz {

struct OpenedMeasuredTrace {
  std::vector<ir::Diagnostic> errors;       // the file could not be read
  std::shared_ptr<const sim::Trace> trace;  // aligned to the plan
  size_t dropped = 0;                       // rTasks of operators the plan lacks
};

OpenedMeasuredTrace openMeasuredTraceFor(const std::string& file, const schedule::Plan& plan);

// The job opening `path` beside the plan of `given`: refused without one.
SideJob measuredTraceJob(const QString& path, const pipeline::Artifacts& given);

// What the session applies: the trace as its run, labelled with the file
// `name`; a line saying why not when the file could not be read, the plan
// changed while it was read (`planChanged`) or none of its operators is in
// the plan.
SideJobReport measuredTraceReport(OpenedMeasuredTrace& out, const QString& name, bool planChanged);

}  // namespace rammer::viz
