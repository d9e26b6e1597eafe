#pragma once
// The host target's fixed sources, compiled into rammer as text from
// core/codegen/host/: rammer_host.h (the prelude: CUDA's names on the CPU,
// and the ABI between kernels, runtime and harness) and
// rammer_host_runtime.cpp (workers, vEU and CUDA-thread fibers, barriers,
// deadlock detection). Generated host programs and host exports carry them.
#include <string_view>
#include <vector>

#include "core/ir/text_file.h"

namespace rammer::codegen {

const std::vector<ir::TextFile>& hostSourceFiles();

// The text of one of them by name; empty when unknown.
std::string_view hostSource(std::string_view name);

inline constexpr const char* kHostHeader = "rammer_host.h";
inline constexpr const char* kHostRuntime = "rammer_host_runtime.cpp";

}  // namespace rammer::codegen
