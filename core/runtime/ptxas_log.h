#pragma once
// Reads ptxas's verbose report, which NVRTC returns in its program log.
#include <map>
#include <string>

#include "core/runtime/kernel_resources.h"

namespace rammer::runtime {

// One entry per entry function, from "Compiling entry function 'k' ...",
// "... bytes stack frame, ... bytes spill stores, ... bytes spill loads" and
// "Used N registers, used B barriers, S bytes smem". Lines it does not know
// are ignored: the format gains fields over time.
std::map<std::string, KernelResourceUsage> parsePtxasLog(const std::string& log);

// The non-inlined device functions' frames: "Function properties for X"
// where X is no entry function, with its stack frame and spills (their
// registers are the calling kernel's). Keyed by the function's own name,
// demangled from ptxas's (`_ZN..._10rammer_fn3EiiPf...` -> "rammer_fn3").
// The rKernel wrappers (rammer_fnN) are such functions: a spill inside an
// rKernel shows here, never in its kernel's line.
std::map<std::string, KernelResourceUsage> parsePtxasFunctions(const std::string& log);

// The identifier of a mangled C++ function name: the last component of a
// nested name, or the name itself when it is not mangled.
std::string functionBaseName(const std::string& mangled);

}  // namespace rammer::runtime
