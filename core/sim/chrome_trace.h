#pragma once
// A Trace as Chrome trace-event JSON (chrome://tracing, Perfetto's UI):
// one process for the device, thread 0 for the rPrograms (kernel launches),
// thread 1 + v for vEU v, named by "M" metadata events ("vEU 5 (SM 5)") and
// sorted by SM then vEU; rTasks are "X" complete events named for their
// operator with args op, rtask, kernel, program, order; barrier waits are
// "X" events of their own (category "barrier"). Times are microseconds.
#include <ostream>
#include <string>

#include "core/sim/trace.h"

namespace rammer::sim {

// Streams the JSON (a Trace can hold millions of events).
void writeChromeTrace(const Trace& trace, std::ostream& out);
std::string chromeTraceJson(const Trace& trace);

// The tid of vEU `veu` in the JSON (tid 0 is the programs lane).
inline int chromeTid(int veu) { return veu + 1; }

}  // namespace rammer::sim
