#pragma once
// The lowered RNN cell ops (com.rammer LstmCell, GruGates, GruCandidate,
// GruCell; see core/ops/rnn/cell_ops.h): per [batch, hidden] output element, the
// same gate arithmetic in the same order as the ops' row code.
#include <cstdint>
#include <string>
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

const std::vector<std::string>& cellOpTypes();

// A persistent cell's resident region (gemv_cell.cuh): its slice of the
// weights and, below the scratch, the tag naming the slice it holds
// (RAMMER_RESIDENT_TAG_BYTES). Slices larger than the cap are not offered:
// at 96 KB two vEUs still share an H100 SM.
inline constexpr int64_t kResidentTagBytes = 16;
inline constexpr int64_t kMaxResidentBytes = 96 * 1024;

std::vector<RKernel> cellKernels(const NodeInfo& info);

}  // namespace rammer::kernels
