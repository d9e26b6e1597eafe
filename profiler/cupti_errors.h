#pragma once
// CUPTI failures in words: which capability is missing and, where there is
// one, what a person can do about it.
#include <string>

namespace rammer::profiler {

// Codes of cupti_result.h this file words specially (stable across versions).
namespace cupti_code {
inline constexpr int kSuccess = 0;
inline constexpr int kNotInitialized = 15;
inline constexpr int kNotSupported = 27;
inline constexpr int kVirtualizedDeviceNotSupported = 33;
inline constexpr int kInsufficientPrivileges = 35;
inline constexpr int kLegacyProfilerNotSupported = 38;
inline constexpr int kVirtualizedDeviceInsufficientPrivileges = 40;
inline constexpr int kCmpDeviceNotSupported = 42;
inline constexpr int kUnknown = 999;
}  // namespace cupti_code

// `result` came from `call`; `resultName` is CUPTI's name for it
// ("CUPTI_ERROR_UNKNOWN"). One sentence, e.g. "GPU performance counters
// are restricted to administrators (cuptiProfilerGetCounterAvailability:
// CUPTI_ERROR_INSUFFICIENT_PRIVILEGES); run as root or ...".
std::string explainCuptiError(int result, const std::string& resultName, const std::string& call);

// True for the codes that mean "counters exist but this user may not read them".
bool isPrivilegeError(int result);

}  // namespace rammer::profiler
