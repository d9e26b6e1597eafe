#pragma once
// The rKernel library: for an operator of the (optimized) graph, every
// implementation this project has, each a different cut into rTasks (tile
// sizes, split-K, direct vs implicit GEMM). Policies choose among them.
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

// What the schedule sees of a node: an rOperator with its candidate rKernels,
// or a view (Reshape, Flatten, Squeeze, Unsqueeze, Identity) that moves no
// data: its output aliases its input and it has no rTasks.
struct OperatorKernels {
  ir::NodeId node = ir::kNone;
  bool isView = false;
  std::vector<RKernel> candidates;  // empty for views
};

// Candidates for one node. An error naming the node and op when no rKernel
// implements it (the graph can still run on the reference executor).
ir::Result<OperatorKernels> kernelsFor(const ir::Graph& graph, ir::NodeId node);

// One rTask of 32 threads that computes and writes nothing: an operator
// whose outputs are empty, a copy that need not copy (in_place.h).
RKernel idleKernel(ir::NodeId node, const ir::Node& n, const std::string& name, const std::string& family);

// Whether the node is a view: its output is its input reinterpreted.
bool isViewOp(const ir::Node& n);

// Op types (domain-qualified for com.rammer) that have rKernels or are views.
std::vector<std::string> supportedOpTypes();

}  // namespace rammer::kernels
