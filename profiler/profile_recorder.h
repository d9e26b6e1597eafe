#pragma once
// Turns a measured run into profile database entries: every rTask's
// duration (from the instrumented build's %globaltimer stamps) is a sample
// of its rKernel at its program's vEUs per SM; rKernels shared by several
// operators (the same key) pool their samples. An operator that ran alone
// in a launch also gets that launch's kernel time (CUPTI activity).
#include <string>
#include <vector>

#include "core/schedule/plan.h"
#include "core/sim/profile_db.h"
#include "core/sim/trace.h"

namespace rammer::profiler {

// `kernelTimeByProgram[p]`: program p's kernel time, samples 0 when not
// measured (may be shorter than the plan's programs). The database is for
// plan.device.id, measured on `gpuName`.
sim::ProfileDB recordTaskTimes(const schedule::Plan& plan, const sim::Trace& measured,
                               const std::vector<sim::TimeStats>& kernelTimeByProgram, const std::string& gpuName);

}  // namespace rammer::profiler
