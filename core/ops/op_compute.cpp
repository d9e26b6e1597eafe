#include "core/ops/op_compute.h"

namespace rammer::ops {

std::vector<ir::Tensor> computeOp(const OpDef& def, const OpContext& ctx) {
  if (!def.infer) return def.compute(ctx);
  const std::vector<ir::TensorType> types = def.infer(ctx);
  // Only the slots the node has: an omitted optional output has no type.
  bool any = false;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!ctx.hasOutput(i)) continue;
    if (!types[i].fullyKnown() || ir::numElements(types[i].shape) != 0) return def.compute(ctx);
    any = true;
  }
  if (!any) return def.compute(ctx);
  std::vector<ir::Tensor> out(types.size());
  for (size_t i = 0; i < types.size(); ++i)
    if (ctx.hasOutput(i)) out[i] = ir::Tensor(types[i].dtype, types[i].shape);
  return out;
}

}  // namespace rammer::ops
