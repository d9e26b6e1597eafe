#pragma once
// The analytic cost model: a roofline per vEU plus the latency of DRAM.
//  - compute: a vEU gets the FP32 rate of its SM divided among the vEUs
//    running there, and no more than its threads can issue on the SM's
//    lanes;
//  - memory: DRAM bandwidth divided among the vEUs running on the device,
//    and no more than its threads keep in flight: each round trip of
//    `memoryLatencyCycles` moves at most threads x `bytesInFlightPerThread`
//    bytes (Little's law), so even a tiny rTask that touches memory takes a
//    round trip;
//  - the slower of compute and memory decides, over the rKernel family's
//    efficiency on the device (DeviceSpec::kernelEfficiency, fitted from
//    measured traces).
// Policies plan with the time on a busy device (every vEU running: what
// taskTimeFn()/policyOptions() hand them); the simulator passes how many
// vEUs really run when the rTask starts. Where the threads, not the device,
// limit the rTask, this is slower than the policies' built-in roofline
// schedule::estimateTaskTimeUs, which has no latency term; otherwise, on a
// busy device, the two are equal.
// Launch and barrier overheads are the DeviceSpec's.
#include "core/sim/cost_model.h"

namespace rammer::sim {

struct AnalyticModelOptions {
  // One DRAM load round trip. Microbenchmarks of H100/A100 put a global
  // load that misses L2 at roughly 500-700 SM cycles; 600 cycles is 0.30 us
  // at H100's 1.98 GHz.
  double memoryLatencyCycles = 600;
  // Bytes one thread has in flight per round trip: the library's rKernels
  // stage tiles through shared memory with independent 4-byte loads before
  // each __syncthreads, four per operand tile and thread for a 64 x 16 tile
  // over 256 threads; 16 B is one operand's worth (a GEMV's other operand
  // is a single row).
  double bytesInFlightPerThread = 16;
};

class AnalyticCostModel : public CostModel {
 public:
  explicit AnalyticCostModel(AnalyticModelOptions options = {}) : options_(options) {}
  const AnalyticModelOptions& options() const { return options_; }

  std::string name() const override { return "analytic cost model"; }
  double taskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                    const TaskContext& context) const override;
  double launchOverheadUs(const device::DeviceSpec& device) const override { return device.launchOverheadUs; }
  double barrierOverheadUs(const device::DeviceSpec& device) const override { return device.barrierLatencyUs; }
  double dispatchOverheadUs(const device::DeviceSpec& device) const override { return device.dispatchLatencyUs; }

 private:
  AnalyticModelOptions options_;
};

}  // namespace rammer::sim
