#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerElementwiseOps(OpRegistry& r) {}

}  // namespace rammer::ops
