#pragma once
// ArgMax / ArgMin: per output element, a walk along the axis keeping the
// first (or, with select_last_index, the last) best value's position, as
// an int32 word (core/ir/words.h). A NaN is never better than the value
// held, as in the reference.
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

std::vector<RKernel> argKernels(const NodeInfo& info);

}  // namespace rammer::kernels
