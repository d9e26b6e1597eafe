#pragma once
// Turns the instrumentation words of a GPU run (per rTask: start and end
// %globaltimer in ns, %smid) into the measured sim::Trace the timeline shows.
// Host-target runs write the same words (steady-clock ns, worker index).
#include <cstdint>
#include <span>
#include <string>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::runtime {

struct TimingSource {
  std::string deviceName;  // "NVIDIA H100 80GB HBM3", for Trace::source
  int sms = 0;             // the GPU's SMs (the host's worker threads); 0: the plan's device
  std::string clock = "%globaltimer";  // what the words count ("steady clock" on the host)
};

// Times are microseconds from the first recorded rTask start. Barrier waits
// are not recorded on the GPU; they are derived from the gap between the
// rTask before a barrier-rTask on its vEU and the one after it, and
// `lastSlot` is the waited-for slot whose rTask ended last. Words left at
// zero (an rTask that never recorded) are skipped and counted in
// metrics["unrecorded_rtasks"]. An error when the buffer is shorter than
// the program's events or a launch names a program the plan lacks. A
// dynamic program's rTasks take their vEU from the record and their order
// on it from their start times.
ir::Result<sim::Trace> decodeTiming(const schedule::Plan& plan, const codegen::GeneratedProgram& program,
                                    std::span<const uint64_t> words, const TimingSource& source);

}  // namespace rammer::runtime
