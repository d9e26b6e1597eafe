#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerRecurrentOps(OpRegistry& r) {}

}  // namespace rammer::ops
