#include "core/ops/op_registry.h"

namespace rammer::ops {

void registerPoolOps(OpRegistry& r) {}

}  // namespace rammer::ops
