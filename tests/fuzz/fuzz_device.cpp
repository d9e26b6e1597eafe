// Device-preset JSON: parsed, then a sample planned (every policy),
// validated and simulated for it. Impossible devices must be refused with a
// message, never crash a policy or the simulator.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/device/device_spec.h"
#include "core/pipeline/pipeline.h"
#include "core/schedule/policy.h"
#include "core/schedule/validator.h"
#include "core/sim/cost_model.h"
#include "core/sim/simulator.h"
#include "tests/fuzz/fuzz_sample.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rammer;
  auto device = device::parseDeviceJson(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!device) return 0;
  static const auto sample = fuzz::optimizedSample("sample_cnn").optimized;
  const auto model = pipeline::defaultCostModel();
  for (const std::string& name : schedule::policyNames()) {
    auto policy = schedule::makePolicy(name, sim::policyOptions(model));
    if (!policy) continue;
    auto plan = (*policy)->schedule(*sample, *device, {});
    if (!plan) continue;
    (void)schedule::checkPlan(*plan, schedule::graphOf(*plan, *sample));
    (void)sim::Simulator(model).run(*plan);
  }
  return 0;
}
