#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerConvOps(OpRegistry& r) {}

}  // namespace rammer::ops
