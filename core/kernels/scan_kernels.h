#pragma once
// CumSum (constant axis; exclusive and reverse as the op defines them): one
// thread per line along the axis, summing in order, so the result is the
// reference's sequential sum to the last bit.
#include <string>
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

const std::vector<std::string>& scanOpTypes();

std::vector<RKernel> scanKernels(const NodeInfo& info);

}  // namespace rammer::kernels
