#pragma once
// The one way to run an op's compute function (the reference executor,
// constant folding, type inference's folding, the fused ops and the
// emulator's copy tiles all call it): an op whose every output has zero
// elements is not computed, its outputs are made empty from the inferred
// types. No op then spends memory or time in proportion to the dims of a
// tensor that holds nothing (a [0, 2^30] Tile would otherwise build a 2^30
// entry offset table, 8 GB, for no element).
#include <vector>

#include "core/ir/tensor.h"
#include "core/ops/op_context.h"
#include "core/ops/op_registry.h"

namespace rammer::ops {

// `def.compute(ctx)`, or the empty outputs when the inferred type of every
// output is fully known and has zero elements.
std::vector<ir::Tensor> computeOp(const OpDef& def, const OpContext& ctx);

}  // namespace rammer::ops
