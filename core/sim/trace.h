#pragma once
// A Trace: what happened (or is predicted to happen) when a Plan ran. The
// simulator, the CPU emulator and the GPU runtime all produce this one type,
// so the timeline, the Chrome-trace export and the comparisons never care
// where a trace came from. Times are microseconds from the start of the
// first program.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/schedule/plan.h"
#include "core/schedule/rprogram.h"

namespace rammer::sim {

// One rTask on one vEU.
struct TaskEvent {
  schedule::RTask task;  // op index into Plan::ops, rTask id
  int32_t program = -1;
  int32_t veu = -1;
  int32_t order = -1;  // instruction index on the vEU's stream
  int32_t sm = -1;     // predicted: veu % SMs; measured: %smid
  double startUs = 0;
  double endUs = 0;
};

// A barrier-rTask: the vEU waited from startUs to endUs. `lastSlot` is the
// slot whose completion released it (the one that finished last), so a
// tooltip can say what it waited for.
struct BarrierEvent {
  int32_t program = -1;
  int32_t veu = -1;
  int32_t order = -1;
  int32_t sm = -1;
  double startUs = 0;
  double endUs = 0;
  schedule::Slot lastSlot;
};

// One kernel launch (one rProgram): from launch to the last vEU's end.
struct ProgramEvent {
  int32_t program = -1;
  int32_t numVEUs = 0;
  int32_t veusPerSM = 0;
  double startUs = 0;
  double endUs = 0;
};

struct Trace {
  bool measured = false;
  std::string source;  // "predicted: analytic cost model", "measured: H100 %globaltimer", "emulated: CPU"
  std::string device;  // DeviceSpec id
  int sms = 0;
  // Per op index (copied from the Plan so a trace stands alone on disk).
  std::vector<std::string> opNames;
  std::vector<std::string> opTypes;
  std::vector<std::string> kernelNames;

  std::vector<TaskEvent> tasks;       // sorted by (program, veu, startUs)
  std::vector<BarrierEvent> barriers;  // sorted by (program, veu, startUs)
  std::vector<ProgramEvent> programs;  // in launch order
  double totalUs = 0;                  // first launch to last program end
  // Busy SM-time (union of its vEUs' rTask intervals, per SM) over
  // SMs x totalUs; in [0, 1]. Measured traces may carry CUPTI's value in
  // `metrics` as well.
  double smEfficiency = 0;
  std::map<std::string, double> metrics;  // extra named numbers (CUPTI, model details)
};

// A trace of `plan` with no events yet: its source, device and SMs, and the
// plan's op names, types and rKernels.
inline Trace traceOf(const schedule::Plan& plan, std::string source, bool measured, int sms) {
  Trace trace;
  trace.measured = measured;
  trace.source = std::move(source);
  trace.device = plan.device.id;
  trace.sms = sms;
  for (const auto& op : plan.ops) {
    trace.opNames.push_back(op.name);
    trace.opTypes.push_back(op.opType);
    trace.kernelNames.push_back(op.isView ? std::string() : op.kernel.name);
  }
  return trace;
}

// The SM a vEU lands on when blocks are spread round-robin (the prediction).
inline int32_t predictedSM(int32_t veu, int sms) { return sms > 0 ? veu % sms : 0; }

}  // namespace rammer::sim
