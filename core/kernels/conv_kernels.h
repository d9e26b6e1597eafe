#pragma once
// rKernels of Conv (1-D, 2-D and 3-D, groups, dilations, pads, auto_pad):
// implicit GEMM per group — [Cout/group] x [N * output positions], K =
// Cin/group * kernel taps — with 64x64 and 32x32 tiles, the im2col gather
// done on the fly; and a direct kernel for depthwise convs (one input channel
// per group) whose rTask is a chunk of one output plane. Bias in the epilogue.
#include <vector>

#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

// Candidates for a Conv node with fully known float32 shapes; ops::OpError
// naming the problem otherwise.
std::vector<RKernel> convKernels(const ir::Graph& graph, ir::NodeId node);

}  // namespace rammer::kernels
