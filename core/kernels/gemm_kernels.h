#pragma once
// rKernels of MatMul and Gemm: output tiles of 64x64, 32x32 and 16x64, and a
// 32x32 split-K variant (more, smaller rTasks that accumulate atomically).
// Batched MatMul tiles each batch (broadcast batch dims included); a Gemm's
// alpha, beta and C (broadcast) are folded into the tile epilogue.
#include <vector>

#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

// Candidates for a MatMul or Gemm node with fully known float32 shapes;
// ops::OpError naming the problem otherwise.
std::vector<RKernel> gemmKernels(const ir::Graph& graph, ir::NodeId node);

}  // namespace rammer::kernels
