#include "core/kernels/kernel_efficiency.h"

namespace rammer::kernels {

namespace {

int64_t param(const RKernel& k, const char* name) {
  const auto it = k.params.find(name);
  return it == k.params.end() ? 0 : it->second;
}

// The tiled GEMM families carry their tile and M (gemm_kernels.cpp); the
// GEMV and the convolutions do not take this path.
bool skinny(const RKernel& kernel) {
  if (kernel.family != "gemm" && kernel.family != "gemm_splitk") return false;
  const int64_t tileM = param(kernel, "tile_m"), m = param(kernel, "M");
  return tileM > 0 && m > 0 && 4 * m <= tileM;
}

}  // namespace

std::string efficiencyKey(const RKernel& kernel) { return skinny(kernel) ? kernel.family + ":skinny" : kernel.family; }

// On every rTask estimate: no key is built unless the tile is skinny.
double kernelEfficiency(const RKernel& kernel, const device::DeviceSpec& device) {
  if (skinny(kernel))
    if (const auto it = device.kernelEfficiency.find(kernel.family + ":skinny"); it != device.kernelEfficiency.end())
      return it->second;
  return device.efficiencyOf(kernel.family);
}

}  // namespace rammer::kernels
