#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerCellOps(OpRegistry& r) {}

}  // namespace rammer::ops
