#pragma once
// The emulator's rTasks of the rKernels that declare what they write
// instead of carrying a CPU tile (RKernel::written, issue #44 item 2): the
// operator's math is then written once, in its CUDA template, and the
// emulator takes the numbers from the operator's reference implementation.
//
// rTask k of such an operator computes the whole operator with the
// reference from the inputs as they are when it runs, and copies the
// elements it writes. The result is kept for the operator's other rTasks
// while its producers' completed-rTask counts stay what they were: an rTask
// that runs before a producer rTask it needs (a missing barrier) sees the
// inputs of that moment, as a CPU tile would, and writes wrong numbers;
// once every rTask has run, the result is freed. In a correct schedule the
// reference runs once per operator, so the first rTask carries the
// operator's time in an emulated trace.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"
#include "core/schedule/plan.h"

namespace rammer::exec {

class ReferenceTiles {
 public:
  // `graph` is the plan's graph (schedule::graphOf); `inputs` bind to its
  // inputs in order. All three must outlive this.
  ReferenceTiles(const schedule::Plan& plan, const ir::Graph& graph, const std::vector<ir::Tensor>& inputs);

  // Runs rTask `rtask` of op `op` (whose kernel has `written`) on
  // `buffers`. Throws naming what failed (a reference error, a run outside
  // the result); the runner reports it.
  void run(int32_t op, int64_t rtask, const kernels::TaskBuffers& buffers);
  // After every rTask of any op completes, before its consumers may start.
  void finished(int32_t op) { done_[static_cast<size_t>(op)].fetch_add(1, std::memory_order_release); }

 private:
  struct OpState {
    std::mutex mutex;
    bool computed = false;
    uint64_t inputsVersion = 0;             // the producers' done counts it was computed from
    std::vector<std::vector<float>> words;  // per output slot: the reference result
    std::vector<std::span<const float>> spans;  // of `words`
    std::vector<int64_t> numel;             // per output slot: its elements (0 where omitted)
    int64_t left = 0;                       // rTasks still to run
  };

  uint64_t inputsVersion(int32_t op) const;
  void compute(int32_t op, const kernels::TaskBuffers& buffers, OpState& state) const;
  // Copies `runs` of the result, computing it first where it is missing or
  // its inputs have moved on. Under state.mutex.
  void copy(int32_t op, const kernels::TaskBuffers& buffers, std::span<const kernels::WrittenRun> runs,
            OpState& state) const;

  const schedule::Plan& plan_;
  const ir::Graph& graph_;
  const std::vector<ir::Tensor>& inputs_;
  std::unique_ptr<std::atomic<uint64_t>[]> done_;  // per op: rTasks completed
  std::vector<std::unique_ptr<OpState>> states_;   // per op with `written`
};

}  // namespace rammer::exec
