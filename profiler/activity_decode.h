#pragma once
// Decoding one CUPTI activity record (needs the CUPTI headers: only
// profiler/*.cpp and tests include this).
#include <optional>

#include "profiler/activity_tracer.h"
#include "profiler/cupti_api.h"

#if RAMMER_HAVE_CUPTI_HEADERS
namespace rammer::profiler {

// A kernel record (CONCURRENT_KERNEL or KERNEL kinds, which CUPTI 13
// writes as CUpti_ActivityKernel10), or nothing for any other kind.
std::optional<KernelRecord> decodeKernelActivity(const CUpti_Activity& record);

}  // namespace rammer::profiler
#endif
