#pragma once
// Trilu as an element-wise rKernel: each output element is its input
// element inside the kept triangle of the last two dims, else zero. The
// diagonal offset k is a constant baked into the kernel.
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

std::vector<RKernel> triluKernels(const NodeInfo& info);

}  // namespace rammer::kernels
