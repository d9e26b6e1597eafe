#pragma once
// FusedElementwise (com.rammer): one output element per thread step, numpy
// broadcasting baked in as per-input strides (0 along broadcast dims).
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

std::vector<RKernel> elementwiseKernels(const NodeInfo& info);

}  // namespace rammer::kernels
