#pragma once
// Turns what the emulator's worker threads recorded (wall-clock times on the
// host) into a sim::Trace, the type the timeline shows, so a machine without
// a GPU still gets a real concurrent timeline from "Compile & Run". The SM
// of a vEU is the predicted round-robin one: CPU threads have no SMs.
#include <vector>

#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::exec {

// The events of one worker thread, in the order it recorded them.
struct WorkerEvents {
  std::vector<sim::TaskEvent> tasks;
  std::vector<sim::BarrierEvent> barriers;
};

// Merges and sorts the workers' events, copies the op names from the plan,
// and fills totalUs, smEfficiency and a few metrics ("threads", "rtasks",
// "barriers", "programs", "barrier_wait_us", "rtask_us").
sim::Trace assembleEmulatedTrace(const schedule::Plan& plan, std::vector<WorkerEvents> workers,
                                 std::vector<sim::ProgramEvent> programs, int threads);

}  // namespace rammer::exec
