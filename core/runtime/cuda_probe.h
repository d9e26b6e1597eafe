#pragma once
// What this machine can do with CUDA: is there a driver, a GPU, NVRTC?
// Cheap and side-effect free apart from cuInit, so the GUI's status bar and
// the CLI ask it before anything else.
#include <string>
#include <vector>

#include "core/runtime/cuda_driver.h"
#include "core/runtime/nvrtc_compiler.h"

namespace rammer::runtime {

struct CudaCapability {
  bool driverLoaded = false;
  bool nvrtcLoaded = false;
  int driverVersion = 0;  // 13000 for 13.0
  std::string nvrtcVersion;
  int deviceCount = 0;
  std::string deviceName;         // device 0
  int computeMajor = 0, computeMinor = 0;
  int sms = 0;
  // One plain sentence: what is there, or what is missing
  // ("no CUDA driver (libcuda.so.1 not found)", "driver loaded but no GPU").
  std::string message;

  bool canCompile() const { return nvrtcLoaded; }
  bool canRun() const { return driverLoaded && nvrtcLoaded && deviceCount > 0; }
  std::string computeCapability() const { return std::to_string(computeMajor) + "." + std::to_string(computeMinor); }
};

struct ProbeOptions {
  std::string driverLibrary = CudaDriver::kDefaultLibrary;
  std::vector<std::string> nvrtcLibraries = NvrtcCompiler::defaultCandidates();
};

CudaCapability probeCuda(const ProbeOptions& options = {});

}  // namespace rammer::runtime
