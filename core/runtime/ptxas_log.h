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

}  // namespace rammer::runtime
