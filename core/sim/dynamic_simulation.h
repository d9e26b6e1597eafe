#pragma once
// The simulator's prediction of a dynamic program (issue #31,
// schedule/dynamic_program.h), run as its persistent kernel runs it:
// whenever a vEU is free it takes the next rTask of the operator at the
// ready queue's head, paying one dispatch first; a finishing rTask opens
// its consumers' gates, and an operator whose gate reaches zero joins the
// queue's tail, seen by the vEUs a hand-off later
// (CostModel::queueHandoffUs). The dispatch costs what the cost model says
// (CostModel::dispatchOverheadUs: measured on an H100, fitted by `rammer
// calibrate` from a lease's dynamic runs); an rTask's time comes from the
// model under the load when it starts, as in the static programs.
#include "core/ir/diagnostic.h"
#include "core/schedule/plan.h"
#include "core/sim/cost_model.h"
#include "core/sim/trace.h"

namespace rammer::sim {

// Appends program `program`'s TaskEvents (sorted by vEU, then start) to
// `trace` and returns its end time; the program launches at `startUs`. An
// operator whose gate never opens is an error naming it, never a hang.
ir::Result<double> simulateDynamicProgram(const schedule::Plan& plan, size_t program, const CostModel& model,
                                          double startUs, Trace& trace);

}  // namespace rammer::sim
