#pragma once
// A dynamic rProgram (issue #31): the plan fixes each operator's rKernel and
// a priority, not which vEU runs which rTask. One persistent kernel runs the
// program, and a vEU that is free takes the next rTask from a ready queue:
//   gate      every operator has a counter: the producer rTasks in this
//             program that must finish before any of its rTasks may start
//             (every rTask of a consumer needs every rTask of its producer;
//             producers in earlier programs finished at the launch boundary);
//   finish    a finishing rTask decrements the gate of each consumer with
//             release semantics; the rTask that takes a gate to zero appends
//             the consumer to the queue;
//   dispatch  a free vEU reads the operator at the queue's head (acquire) and
//             claims its next rTask index with an atomic add; the claims past
//             the last rTask move on to the next entry;
//   end       the kernel ends when every rTask has run.
// The queue holds operators, not rTasks, and each operator enters it exactly
// once: a ring of ops.size() entries never overflows, and a dispatch costs
// one atomic on a counter that a whole operator's rTasks share, or, with
// claim shards, on one of K counters (per-SM queues with stealing). Operators
// enter in priority order (the longest predicted path to the program's end
// first): the ready ones at launch, and each finishing rTask's consumers.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rammer::schedule {

struct Plan;

// Shared memory a dynamic program's kernel keeps per vEU beside its
// rKernels': thread 0 writes the rTask it took there for the whole block.
inline constexpr int64_t kDispatchSlotBytes = 16;

struct DynamicOp {
  int32_t op = -1;                 // index into Plan::ops
  int64_t rtasks = 0;              // its rKernel's rTasks, claimed in index order
  int64_t gate = 0;                // producer rTasks in this program that must finish first
  std::vector<int32_t> consumers;  // indices into DynamicProgram::ops, highest priority first
  double priority = 0;             // predicted us from its start to the program's end
};

struct DynamicProgram {
  std::vector<DynamicOp> ops;    // a topological order: producers first
  std::vector<int32_t> initial;  // the queue at launch: the ops whose gate is 0, highest priority first
  int64_t queueCapacity = 0;     // ring entries
  // Claim counters per operator. Shard s holds rTasks s, s + K, s + 2K, ...;
  // vEU v claims from shard v mod K first and steals from the next shards
  // when it is empty, so K = the SM count is about a queue per SM (a GPU
  // usually deals blocks to SMs in turn). 1: one counter that every vEU hits
  // (264-528 of them on an H100, 3.3 us per dispatch measured).
  int32_t claimShards = 1;

  int64_t numRTasks() const;
};

// The dynamic program of the plan's operators `ops` (indices into plan.ops,
// in a topological order), given each operator's predicted time alone, for
// the priorities.
DynamicProgram buildDynamicProgram(const Plan& plan, const std::vector<int32_t>& ops,
                                   const std::function<double(int32_t op)>& opUs);

// What the validator proves of program `program` (empty when it holds): each
// gate is the rTask count of the operator's producers in the program, each
// producer lists the consumer and no other operator does, the order is
// topological (so no cycle), the initial queue is exactly the ungated
// operators, every operator appears once with its rKernel's rTasks, the
// ring holds every entry, and there are 1 to vEUs claim shards.
std::vector<std::string> checkDynamicProgram(const Plan& plan, size_t program);

}  // namespace rammer::schedule
