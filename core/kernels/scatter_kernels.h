#pragma once
// ScatterND with constant indices (reduction "none"): every index tuple
// names a contiguous slice of the output, so a baked table with one entry
// per slice says which update slice lands there (-1: the data's own
// element). Duplicate tuples: the last one wins, as in the reference.
#include <string>
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

const std::vector<std::string>& scatterOpTypes();

std::vector<RKernel> scatterKernels(const NodeInfo& info);

}  // namespace rammer::kernels
