#pragma once
// The fixed head of every generated translation unit: the few target
// primitives the generated kernels use (acquire/release on the step
// counters, a timer, the SM id, the barrier-rTask's wait and publish, the
// fan-out of an rTask over the block's threads) and the instruction-table
// check. The targets differ only here (and HIP in __launch_bounds__'s
// second argument); the host prelude is core/codegen/host/rammer_host.h.
#include <string>

#include "core/codegen/generated_program.h"

namespace rammer::codegen {

std::string devicePrelude(Target target);

}  // namespace rammer::codegen
