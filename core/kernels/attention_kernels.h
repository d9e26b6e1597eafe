#pragma once
// com.rammer::Attention (core/ops/nn/attention_op.h) flash-attention style:
// an rTask is a block of query rows of one (batch, head), a thread a query
// row with its output row in registers; K and V stream through shared
// memory in tiles of 32 keys, and each row keeps a running maximum and sum
// (online softmax), so the score matrix never goes to memory. Two variants:
// 64 and 32 rows per rTask (the second for short sequences: more rTasks).
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

std::vector<RKernel> attentionKernels(const NodeInfo& info);

}  // namespace rammer::kernels
