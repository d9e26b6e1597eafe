#pragma once
// The lowered RNN cell ops (com.rammer LstmCell, GruGates, GruCandidate,
// GruCell; see core/ops/rnn/cell_ops.h): per [batch, hidden] output element, the
// same gate arithmetic in the same order as the ops' row code.
#include <string>
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

const std::vector<std::string>& cellOpTypes();

std::vector<RKernel> cellKernels(const NodeInfo& info);

}  // namespace rammer::kernels
