#pragma once
// Memory a CPU run will take, estimated from the graph's static shapes
// before anything is allocated, and the budget it must fit. A valid model of
// a few kilobytes can describe tensors of many gigabytes (an Expand to
// [100000, 100000]); the executors refuse it up front, naming the largest
// tensors, instead of swapping the machine to a halt or dying in bad_alloc.
//
// Each estimate follows what its executor really holds:
//  - the reference executor frees an intermediate after its last use, so
//    its peak is the inputs plus the values live at the worst node;
//  - the emulator gives every planned operator output a float32 buffer of
//    its own for the whole run (views share their input's);
//  - the host target's child process also holds float32 copies of the
//    inputs and weights.
// Values of unknown shape are left out (counted in `unknownValues`).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"

namespace rammer::exec {

struct TensorFootprint {
  std::string name;
  ir::TensorType type;
  int64_t bytes = 0;
};

struct MemoryEstimate {
  int64_t peakBytes = 0;                 // saturates at INT64_MAX
  int64_t scratchBytes = 0;              // of peakBytes: the running node's working memory
  std::vector<TensorFootprint> largest;  // held at the peak, largest first (at most kLargestShown)
  int64_t unknownValues = 0;             // values whose size is not known statically
  bool lowerBound = false;               // the run holds at least this (worded "at least")
  static constexpr size_t kLargestShown = 3;
};

// The reference executor's peak: graph inputs plus the intermediates live
// while the worst node runs (its inputs and outputs included), plus, with
// `scratch`, that node's own working memory (ops::OpDef::scratch: index
// tables, im2col columns). Without it, the tensors alone: what any run of
// the graph holds, a lower bound for the emulator and the host.
MemoryEstimate estimateReferenceRun(const ir::Graph& graph, bool scratch = true);
// The graph inputs alone (random inputs are made before any run).
MemoryEstimate estimateInputs(const ir::Graph& graph);
// The emulator's arena for `plan` (made for `graph`): every non-view planned
// output as float32, plus the inputs. `withConstants` adds float32 copies of
// the constants the plan reads, as the host target's child process loads.
MemoryEstimate estimatePlanRun(const schedule::Plan& plan, const ir::Graph& graph, bool withConstants);

// Half of this machine's memory (or of the cgroup limit, when lower): the
// default budget of every CPU run.
int64_t defaultMemoryBudget();

// Empty when `estimate` fits `budgetBytes` (0: defaultMemoryBudget()); else
// an error naming `what` ("the reference executor"), the estimate, the
// budget and the largest tensors.
std::optional<ir::Diagnostic> checkMemoryBudget(const MemoryEstimate& estimate, int64_t budgetBytes,
                                                const std::string& what);

}  // namespace rammer::exec
