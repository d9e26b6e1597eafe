#pragma once
// The instruction table that drives a persistent kernel: every vEU (thread
// block) walks its own range of entries. An entry is either a run of rTasks
// of one operator (rtask first, first+stride, ... count of them) or a
// barrier (a list of (vEU, order) slots to wait for). Entries after which
// another vEU waits publish the vEU's completed-instruction count; no other
// entry pays for a fence. vEUs with identical entry lists share one range,
// so idle vEUs and repeated patterns cost nothing.
#include <cstdint>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/schedule/rprogram.h"

namespace rammer::codegen {

struct TableEntry {
  int32_t fn = -1;       // function group, or -1 for a barrier
  int32_t args = 0;      // exec: offset into the argument table; barrier: offset into waits
  int32_t first = 0;     // exec: first rtask id
  int32_t count = 0;     // exec: rTasks in the run; barrier: number of awaited vEUs
  int32_t stride = 0;    // exec: rtask step between the run's rTasks
  int32_t publish = 0;   // > 0: store epoch<<32 | publish into steps[vEU] afterwards
  friend bool operator==(const TableEntry&, const TableEntry&) = default;
  friend auto operator<=>(const TableEntry&, const TableEntry&) = default;
};

// A barrier's wait list as pairs {vEU, order}, one per awaited vEU in
// increasing vEU order: the vEU must have completed instruction `order`
// (its latest awaited one). Flat, so the block's thread j finds the j-th
// counter it polls at words 2j and 2j + 1: no thread walks the list. It
// used to be runs {first vEU, vEUs, order}, 3 words for an operator spread
// over any number of consecutive vEUs, but thread j had to step through
// the runs before its counter to find it: up to 64 dependent table reads
// per barrier in lstm_tc, on the critical path whenever the consumer
// reached its barrier after its producers were done.
std::vector<int32_t> encodeWaits(std::vector<schedule::Slot> waits);

struct StreamRange {
  int32_t begin = 0, end = 0;  // [begin, end) into entries
};

struct InstructionTable {
  std::vector<TableEntry> entries;
  std::vector<int32_t> waits;          // pairs {vEU, order}, see encodeWaits
  std::vector<StreamRange> streams;    // per vEU
  std::vector<int64_t> eventBase;      // per vEU: its first rTask's event index
  std::vector<TimedTask> timedTasks;   // event index -> rTask, in (vEU, order) order
  int activeVEUs = 0;                  // 1 + the last vEU with a non-empty stream
};

// `groupOfOp` and `argOffsetOfOp` map a plan op to its function group and
// its first entry in the argument table. Fails when an rtask id or a table
// index does not fit the 32-bit fields, or an Exec names an op without a group.
ir::Result<InstructionTable> buildInstructionTable(const schedule::RProgram& program,
                                                   const std::vector<int32_t>& groupOfOp,
                                                   const std::vector<int32_t>& argOffsetOfOp);

}  // namespace rammer::codegen
