#pragma once
// Teaching mode for a dynamic plan (--policy dynamic): no step of the
// policy put an rTask on a vEU, so the run is explained instead, as the
// sequence of dispatch decisions a trace of it shows. One step per
// operator in the order its first rTask was taken: when its gate opened and
// it entered the ready queue (which producer's last rTask opened it), what
// was ahead of it in the queue, how many free vEUs took its rTasks and
// when, what a take costs, and the rKernel the policy chose for it.
#include <vector>

#include "core/schedule/plan.h"
#include "core/sim/trace.h"
#include "viz/models/teaching_steps.h"

namespace rammer::viz {

// A first step with the plan and the policy's log, then one step per
// operator of the dynamic programs that `trace` (simulated or measured)
// ran. Static programs of the plan are left out.
std::vector<TeachingStep> dispatchSteps(const schedule::Plan& plan, const sim::Trace& trace);

}  // namespace rammer::viz
