#include "profiler/cupti_errors.h"

namespace rammer::profiler {

bool isPrivilegeError(int result) {
  return result == cupti_code::kInsufficientPrivileges || result == cupti_code::kVirtualizedDeviceInsufficientPrivileges;
}

std::string explainCuptiError(int result, const std::string& resultName, const std::string& call) {
  const std::string what = "(" + call + ": " + resultName + ")";
  switch (result) {
    case cupti_code::kInsufficientPrivileges:
    case cupti_code::kVirtualizedDeviceInsufficientPrivileges:
      return "GPU performance counters are restricted to administrators " + what +
             "; run as root, or load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0";
    case cupti_code::kUnknown:
      return "CUPTI cannot attach to a GPU " + what + ": no usable CUDA driver or GPU in this process";
    case cupti_code::kNotInitialized:
      return "CUPTI could not initialize " + what;
    case cupti_code::kVirtualizedDeviceNotSupported:
      return "the GPU is virtualized (vGPU) and does not allow profiling " + what;
    case cupti_code::kCmpDeviceNotSupported:
      return "CUPTI does not profile crypto-mining processors (CMP) " + what;
    case cupti_code::kNotSupported:
    case cupti_code::kLegacyProfilerNotSupported:
      return "CUPTI does not support this GPU or configuration " + what;
    default:
      return call + " failed: " + resultName;
  }
}

}  // namespace rammer::profiler
