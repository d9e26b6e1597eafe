#pragma once
// MaxPool / AveragePool (1-D to 3-D windows, via the ops' window geometry)
// and GlobalAveragePool / GlobalMaxPool.
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

std::vector<RKernel> windowPoolKernels(const NodeInfo& info);
std::vector<RKernel> globalPoolKernels(const NodeInfo& info);

}  // namespace rammer::kernels
