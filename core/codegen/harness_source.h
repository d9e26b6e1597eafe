#pragma once
// The fixed files of an exported project: the harness (main.cu / main.hip /
// main.cpp) that loads the data written next to it, runs, checks and times
// the program, and its CMakeLists.txt. They are real files in
// core/codegen/harness/, compiled into rammer as text (core/CMakeLists.txt),
// so they are read and reviewed as C++ and CMake. The model-specific parts
// are the kernels file and manifest.txt (project_export.h).
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/text_file.h"

namespace rammer::codegen {

// core/codegen/harness/: main.cpp, CMakeLists.{cuda,hip,host}.txt (the
// host one with @FLAGS@ and @TSAN_FLAGS@ for hostCompileFlags()).
const std::vector<ir::TextFile>& harnessFiles();

std::string harnessSource(Target target);
std::string projectCMakeLists(Target target);

// The host target's compiler flags (without sources and libraries), the
// same for the CMake project and for rammer's own builds of host programs.
std::vector<std::string> hostCompileFlags(bool threadSanitizer = false);

}  // namespace rammer::codegen
