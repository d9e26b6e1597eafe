#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerTensorOps(OpRegistry& r) {}

}  // namespace rammer::ops
