#include "viz/models/measured_trace_opening.h"

#include "core/sim/measured_trace.h"

namespace rammer::viz {

OpenedMeasuredTrace openMeasuredTraceFor(const std::string& file, const schedule::Plan& plan) {
  OpenedMeasuredTrace out;
  auto t = sim::loadMeasuredTrace(file);
  if (!t) {
    out.errors = t.errors();
    return out;
  }
  out.trace = std::make_shared<const sim::Trace>(sim::alignToPlan(std::move(t).value(), plan, &out.dropped));
  return out;
}

}  // namespace rammer::viz
