#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerReduceOps(OpRegistry& r) {}

}  // namespace rammer::ops
