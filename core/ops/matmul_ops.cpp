#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerMatMulOps(OpRegistry& r) {}

}  // namespace rammer::ops
