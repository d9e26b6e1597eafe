#pragma once
// LayerNormalization (opset 17, Y only) over rows of the normalized shape
// X[axis:], D elements each: one row per rTask with block reductions of the
// mean and the variance, or many rows per rTask, a thread each (short rows,
// many of them). Scale and B are read per element of the row (the shape of
// X[axis:], or one value).
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

std::vector<RKernel> layerNormKernels(const NodeInfo& info);

}  // namespace rammer::kernels
