#include "core/schedule/policy.h"

#include <algorithm>
#include <cctype>

#include "core/kernels/kernel_efficiency.h"
#include "core/schedule/dynamic_policy.h"
#include "core/schedule/graphturbo_policy.h"
#include "core/schedule/greedy_policy.h"
#include "core/schedule/ios_policy.h"
#include "core/schedule/sequential_policy.h"
#include "core/schedule/wavefront_policy.h"

namespace rammer::schedule {

RooflineTerms rooflineTerms(const kernels::RKernel& kernel, const device::DeviceSpec& device, int onSM, int running) {
  const double sms = std::max(1, device.sms);
  const double lanes = std::max(1, device.subPartitions * device.warpSize);
  const double threads = std::max(1, kernel.threads());
  // A vEU's share of its SM: its slice of the co-resident blocks, and no
  // more than its threads can keep busy.
  const double share = std::min(1.0 / std::max(1, onSM), std::min(threads, lanes) / lanes);
  const double flopsPerUs = device.peakFp32Tflops * 1e6 / sms * share;
  RooflineTerms t;
  t.computeUs = flopsPerUs > 0 ? kernel.flopsPerRTask() / flopsPerUs : 0;
  t.memoryUs = rtaskMemoryUs(kernel, device) * std::max(1, running);
  return t;
}

double estimateTaskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device, int veusPerSM) {
  const int perSM = std::max(1, veusPerSM);
  const RooflineTerms t = rooflineTerms(kernel, device, perSM, perSM * std::max(1, device.sms));
  return std::max(t.computeUs, t.memoryUs) / kernels::kernelEfficiency(kernel, device);
}

double rtaskMemoryUs(const kernels::RKernel& kernel, const device::DeviceSpec& device) {
  if (!kernel.numRTasks || device.memoryBandwidthGBs <= 0) return 0;
  const double tasks = static_cast<double>(kernel.numRTasks);
  const double dram = kernel.dramBytes() / tasks, l2 = kernel.l2Bytes / tasks;
  const double l2Bandwidth = device.l2BandwidthGBs > 0 ? device.l2BandwidthGBs : device.memoryBandwidthGBs;
  return dram / (device.memoryBandwidthGBs * 1e3) + l2 / (l2Bandwidth * 1e3);
}

std::vector<std::string> staticPolicyNames() {
  std::vector<std::string> names;
  for (const PolicyInfo& p : policyRegistry())
    if (p.placesStatically) names.emplace_back(p.name);
  return names;
}

std::vector<std::string> policyNames() {
  std::vector<std::string> names;
  for (const PolicyInfo& p : policyRegistry()) names.emplace_back(p.name);
  return names;
}

ir::Result<std::unique_ptr<Policy>> makePolicy(const std::string& name, PolicyOptions options) {
  const ir::Result<PolicyId> id = parsePolicy(name);
  if (!id) return id.errors();
  return makePolicy(*id, std::move(options));
}

std::unique_ptr<Policy> makePolicy(PolicyId id, PolicyOptions options) {
  switch (id) {
    case PolicyId::Sequential: return std::unique_ptr<Policy>(new SequentialPolicy(std::move(options)));
    case PolicyId::Wavefront: return std::unique_ptr<Policy>(new WavefrontPolicy(std::move(options)));
    case PolicyId::Greedy: return std::unique_ptr<Policy>(new GreedyPolicy(std::move(options)));
    case PolicyId::Ios: return std::unique_ptr<Policy>(new IosPolicy(std::move(options)));
    case PolicyId::GraphTurbo: return std::unique_ptr<Policy>(new GraphTurboPolicy(std::move(options)));
    case PolicyId::Dynamic: return std::unique_ptr<Policy>(new DynamicPolicy(std::move(options)));
  }
  return std::unique_ptr<Policy>(new WavefrontPolicy(std::move(options)));  // unreachable: every id is a case
}

}  // namespace rammer::schedule
