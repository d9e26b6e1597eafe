#pragma once
// The fixed head of every generated translation unit: the few target
// primitives the generated kernels use (acquire/release on the step
// counters, a timer, the SM id) and the instruction-table record. CUDA and
// HIP differ only here (and in __launch_bounds__'s second argument).
#include <string>

#include "core/codegen/generated_program.h"

namespace rammer::codegen {

std::string devicePrelude(Target target);

}  // namespace rammer::codegen
