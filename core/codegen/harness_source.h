#pragma once
// The fixed files of an exported project: the harness (main.cu / main.hip)
// that loads the data written next to it, runs, checks and times the
// program, and its CMakeLists.txt. The model-specific parts are the kernels
// file and manifest.txt (project_export.h).
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"

namespace rammer::codegen {

std::string harnessSource(Target target);
std::string projectCMakeLists(Target target);

// The host target's compiler flags (without sources and libraries), the
// same for the CMake project and for rammer's own builds of host programs.
std::vector<std::string> hostCompileFlags(bool threadSanitizer = false);

}  // namespace rammer::codegen
