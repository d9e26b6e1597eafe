#pragma once
// A dynamic rProgram's persistent kernel (issue #31): no instruction table
// of who runs what, but a queue table the vEUs dispatch from at run time
// (schedule/dynamic_program.h has the model, device_prelude.cpp the
// dispatch, docs/CODEGEN.md "Dynamic programs" the layout).
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/schedule/dynamic_program.h"

namespace rammer::codegen {

struct QueueTable {
  // Offsets from the table's first word: header {operators, queued at
  // launch, operator entries, consumer lists, claim shards}, the launch queue, the
  // operator entries (8 words: fn, args, rTasks, gate, first consumer,
  // consumers, first event, 0), the consumer lists.
  std::vector<int32_t> words;
  std::set<int32_t> fns;              // the function groups the program calls
  std::vector<TimedTask> timedTasks;  // event index -> rTask; its vEU is known only at run time
  int64_t stateWords = 0;             // the state buffer, in 4-byte words (zeroed before each launch)
};

// `groupOfOp` and `argOffsetOfOp` map a plan op to its function group and
// its argument list. Fails when a count does not fit the 32-bit fields or
// an operator has no function group.
ir::Result<QueueTable> buildQueueTable(const schedule::DynamicProgram& program, const std::vector<int32_t>& groupOfOp,
                                       const std::vector<int32_t>& argOffsetOfOp);

// Where the kernel finds its parts: the queue table at word `queueAt` of
// buffer `tableBuffer`, its state in buffer `stateBuffer`, the dispatch
// slot after the rKernels' `sharedWords` words of shared memory.
struct DynamicKernelLayout {
  int32_t tableBuffer = -1;
  int64_t queueAt = 0;
  int32_t stateBuffer = -1;
  int64_t sharedWords = 0;
};

// The kernel text: a switch over `fns`, then the dispatch loop.
std::string dynamicKernel(const CodegenOptions& options, const KernelLaunch& launch, const std::set<int32_t>& fns,
                          const DynamicKernelLayout& layout);

}  // namespace rammer::codegen
