#pragma once
// Runs a graph on the CPU with the ops' reference implementations. This is
// the numerical ground truth every other backend is compared with.
#include <atomic>
#include <functional>
#include <vector>

#include "core/ir/graph.h"
#include "core/ops/op_registry.h"

namespace rammer::exec {

struct ReferenceOptions {
  const std::atomic<bool>* cancel = nullptr;                  // polled between nodes
  std::function<void(size_t done, size_t total)> progress;     // after each node
  const ops::OpRegistry* registry = nullptr;                   // default: builtin
  int64_t maxMemoryBytes = 0;  // refused above this estimate (memory_budget.h); 0: the default budget
};

// `inputs` bind, in order, to graph.inputs(). Returns one tensor per graph
// output, in order, or diagnostics naming the failing node, or, before
// anything runs, the memory budget the graph's tensors would exceed.
ir::Result<std::vector<ir::Tensor>> runReference(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                                                 const ReferenceOptions& options = {});

// How many reads each value gets in `order` (graph outputs count as never
// done): the executor frees a value when its count reaches zero, and the
// memory estimate (memory_budget.h) replays the same frees.
std::vector<int> useCounts(const ir::Graph& graph, const std::vector<ir::NodeId>& order);

// Checks that inputs match the graph's inputs (count, dtype, known dims).
std::vector<ir::Diagnostic> checkInputs(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs);

}  // namespace rammer::exec
