#include "core/runtime/cuda_probe.h"

#include <array>

namespace rammer::runtime {

CudaCapability probeCuda(const ProbeOptions& options) {
  CudaCapability c;
  std::string nvrtcNote;
  if (auto nvrtc = NvrtcCompiler::load(options.nvrtcLibraries)) {
    c.nvrtcLoaded = true;
    c.nvrtcVersion = (*nvrtc)->version();
  } else {
    nvrtcNote = "no NVRTC (libnvrtc.so not found), so generated kernels cannot be compiled";
  }
  auto withNvrtc = [&](std::string m) { return nvrtcNote.empty() ? m : m + "; " + nvrtcNote; };

  auto driver = CudaDriver::load(options.driverLibrary);
  if (!driver) {
    c.message = withNvrtc("no CUDA driver (" + options.driverLibrary + " not found)");
    return c;
  }
  const CudaDriver& d = **driver;
  c.driverLoaded = true;
  d.cuDriverGetVersion(&c.driverVersion);
  if (cu::Result r = d.cuInit(0); r != cu::kSuccess) {
    c.message = withNvrtc(r == cu::kErrorNoDevice ? "CUDA driver loaded but no GPU"
                                                  : "CUDA driver loaded but it cannot start: " + d.errorText(r, "cuInit"));
    return c;
  }
  if (cu::Result r = d.cuDeviceGetCount(&c.deviceCount); r != cu::kSuccess || c.deviceCount == 0) {
    c.deviceCount = 0;
    c.message = withNvrtc("CUDA driver loaded but no GPU");
    return c;
  }
  cu::Device dev = 0;
  if (d.cuDeviceGet(&dev, 0) == cu::kSuccess) {
    std::array<char, 256> name{};
    if (d.cuDeviceGetName(name.data(), static_cast<int>(name.size()) - 1, dev) == cu::kSuccess)
      c.deviceName = name.data();
    d.cuDeviceGetAttribute(&c.computeMajor, cu::kAttrComputeCapabilityMajor, dev);
    d.cuDeviceGetAttribute(&c.computeMinor, cu::kAttrComputeCapabilityMinor, dev);
    d.cuDeviceGetAttribute(&c.sms, cu::kAttrMultiprocessorCount, dev);
  }
  c.message = withNvrtc(c.deviceName + " (compute " + c.computeCapability() + ", " + std::to_string(c.sms) +
                        " SMs), driver " + std::to_string(c.driverVersion / 1000) + "." +
                        std::to_string(c.driverVersion % 1000 / 10) +
                        (c.nvrtcLoaded ? ", NVRTC " + c.nvrtcVersion : ""));
  return c;
}

}  // namespace rammer::runtime
