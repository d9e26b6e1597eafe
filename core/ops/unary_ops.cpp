#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerUnaryOps(OpRegistry& r) {}

}  // namespace rammer::ops
