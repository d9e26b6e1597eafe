#pragma once
// What share of its roofline an rKernel reaches on a device: its family's
// measured efficiency (DeviceSpec::kernelEfficiency), or, for a tiled GEMM
// whose M fills a quarter of its tile or less (a batch-1 Linear: M = 1 on
// a 32-row tile), the family's ":skinny" entry where the device has one.
// Why: such a tile pays its loads and barriers per K step for one useful
// row. On the H100, gemm_32x32_splitk4 at M = 1 reached 0.48 of the
// model's time at efficiency 1 (alexnet's fc1, 190 us per rTask, and
// lstm_tc's input projections, 5.5 us; 2026-11-27b lease) where the
// family's fit over its other shapes says 0.68, so the planner took it
// for alexnet's fc1 and fc2 over a GEMV that ran 4x faster per rTask.
#include <string>

#include "core/device/device_spec.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

// "gemm_splitk", or "gemm_splitk:skinny" for a tiled GEMM at M <= tile_m / 4.
std::string efficiencyKey(const RKernel& kernel);

// The device's efficiency for efficiencyKey(kernel), else for its family
// (1 where the device lists neither: the roofline).
double kernelEfficiency(const RKernel& kernel, const device::DeviceSpec& device);

}  // namespace rammer::kernels
