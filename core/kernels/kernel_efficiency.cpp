#include "core/kernels/kernel_efficiency.h"

namespace rammer::kernels {

namespace {

int64_t param(const RKernel& k, const char* name) {
  const auto it = k.params.find(name);
  return it == k.params.end() ? 0 : it->second;
}

}  // namespace

std::string efficiencyKey(const RKernel& kernel) {
  // The tiled GEMM families carry their tile and M (gemm_kernels.cpp); the
  // GEMV and the convolutions do not take this path.
  const bool gemm = kernel.family == "gemm" || kernel.family == "gemm_splitk";
  const int64_t tileM = param(kernel, "tile_m"), m = param(kernel, "M");
  if (gemm && tileM > 0 && m > 0 && 4 * m <= tileM) return kernel.family + ":skinny";
  return kernel.family;
}

double kernelEfficiency(const RKernel& kernel, const device::DeviceSpec& device) {
  const std::string key = efficiencyKey(kernel);
  if (key != kernel.family && device.kernelEfficiency.count(key)) return device.efficiencyOf(key);
  return device.efficiencyOf(kernel.family);
}

}  // namespace rammer::kernels
