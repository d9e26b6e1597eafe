#pragma once
// Softmax / LogSoftmax with both opset conventions (before 13 the input is
// coerced to 2-D at `axis`; from 13 the single dim `axis`), as rows of n
// elements with a stride (inner) between them.
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

std::vector<RKernel> softmaxKernels(const NodeInfo& info);

}  // namespace rammer::kernels
