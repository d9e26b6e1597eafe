#pragma once
// What the CPU emulator refuses before it starts a thread: instructions
// that name no real rTask (running them would index out of bounds), rTasks
// that run twice or never (two copies racing on one tile, or an output left
// unwritten), and barriers on a slot that does not exist or that comes
// later on the waiting vEU itself (deadlocks known without running). Wait
// cycles between vEUs are found while running (see StallDetector). Missing
// dependencies are the validator's business: like a GPU, the emulator then
// computes whatever the schedule says.
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/schedule/plan.h"

namespace rammer::exec {

// Empty when the plan can be emulated; otherwise at most `maxErrors`
// errors naming rTasks as "op[rtask]" with program, vEU and order.
std::vector<ir::Diagnostic> preflightPlan(const schedule::Plan& plan, size_t maxErrors = 20);

}  // namespace rammer::exec
