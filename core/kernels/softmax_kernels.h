#pragma once
// Softmax / LogSoftmax with both opset conventions (before 13 the input is
// coerced to 2-D at `axis`; from 13 the single dim `axis`), as rows of n
// elements with a stride (inner) between them: a row per thread, a row per
// block with three passes, and for rows of 1,024 and more a row per block of
// up to 1,024 threads finding the maximum and the sum in one pass (online).
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

std::vector<RKernel> softmaxKernels(const NodeInfo& info);

}  // namespace rammer::kernels
