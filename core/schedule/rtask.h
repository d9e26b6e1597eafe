#pragma once
// An rTask (Rammer §3.1): the smallest unit of work the schedule places.
// Every rOperator (a PlannedOp, computed by its chosen rKernel) splits into
// `numRTasks` independent rTasks; rTask k of an operator computes one tile
// of its output with one vEU's threads. The policies place rTasks on vEUs,
// the validator proves their order, the emulator and the generated code run
// them one by one.
#include <cstddef>
#include <cstdint>
#include <functional>

namespace rammer::schedule {

struct RTask {
  int32_t op = -1;     // the rOperator: index into Plan::ops
  int64_t rtask = -1;  // which of its rTasks, 0 .. kernel.numRTasks - 1
  friend bool operator==(const RTask&, const RTask&) = default;
  friend auto operator<=>(const RTask&, const RTask&) = default;
};

// Hashed maps of rTasks: plans reach hundreds of thousands of them.
struct RTaskHash {
  size_t operator()(const RTask& t) const { return std::hash<int64_t>()(t.rtask * 1000003 + t.op); }
};

}  // namespace rammer::schedule
