#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerNormOps(OpRegistry& r) {}

}  // namespace rammer::ops
