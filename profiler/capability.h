#pragma once
// What this machine can measure, in words: a CUDA driver and GPU (to run
// at all), CUPTI's Activity API (kernel start/end per launch) and its Range
// Profiler (hardware counters). Each missing piece is named with the
// reason (no driver, no GPU, CUPTI missing, counters restricted to
// administrators, ...), and what is measured instead is labelled as an
// estimate by the caller.
#include <cstdint>
#include <string>
#include <vector>

#include "core/runtime/cuda_probe.h"
#include "profiler/cupti_loader.h"

namespace rammer::profiler {

struct ProfilerCapability {
  runtime::CudaCapability cuda;  // driver, GPU, NVRTC
  bool cuptiLoaded = false;
  std::string cuptiLibrary;
  uint32_t cuptiVersion = 0;
  bool kernelTimestamps = false;  // Activity API works
  bool counters = false;          // Range Profiler works for the metrics
  std::string chip;               // "GH100", when counters
  size_t counterPasses = 0;       // replay passes the metrics need
  // What provides each, or why nothing does: "CUPTI activity records
  // (CONCURRENT_KERNEL)" / "unavailable: GPU performance counters are
  // restricted to administrators (...)".
  std::string timestampsMessage;
  std::string countersMessage;
  // All of it in one paragraph, the device first.
  std::string message;

  bool canRun() const { return cuda.canRun(); }
};

struct ProfilerProbeOptions {
  runtime::ProbeOptions cuda;
  std::vector<std::string> cuptiLibraries = CuptiLibrary::defaultCandidates();
};

// Side effects only where there is a GPU: it retains (and releases) the
// primary context and initializes CUPTI on it. Without a driver or GPU,
// CUPTI's target side is never called (CUPTI 13 can crash there).
ProfilerCapability probeProfiler(const ProfilerProbeOptions& options = {});

}  // namespace rammer::profiler
