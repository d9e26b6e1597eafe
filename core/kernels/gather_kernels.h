#pragma once
// Gather and GatherElements whose indices are computed at run time (an
// embedding looked up by token ids that are a graph input): each output element
// reads its index word, then the data word it names. A constant index tensor is
// baked into a copy rKernel instead (copy_kernels.h).
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

// Negative indices count from the end of the axis, as ONNX says. An index
// outside the axis cannot stop a GPU run: its elements get the word
// 0x7fffffff (NaN as float32, INT_MAX as an integer), which shows in the
// output where the reference would have stopped with an error.
std::vector<RKernel> runtimeGatherKernels(const NodeInfo& info);
// GatherElements likewise: each output element's own index word picks the
// data element along the axis.
std::vector<RKernel> runtimeGatherElementsKernels(const NodeInfo& info);

}  // namespace rammer::kernels
