#pragma once
// ReduceSum / Mean / Max / Min / Prod / L1 / L2 / SumSquare / LogSum over
// axes (attribute or input by opset, keepdims, noop_with_empty_axes as the
// ops define them): per output element, a walk over the reduced box.
#include <string>
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

const std::vector<std::string>& reduceOpTypes();

std::vector<RKernel> reduceKernels(const NodeInfo& info);

}  // namespace rammer::kernels
