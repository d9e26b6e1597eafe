// Schedule-edit JSON against a sample model: parsed, planned, validated and
// simulated. A refused edit is a diagnostic; a crash is a finding. Each
// input is planned by one policy, picked from its bytes (so a reproducer
// replays the same one): all five took 18 s an input in the -O0 smoke.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/pipeline/pipeline.h"
#include "core/schedule/policy.h"
#include "core/schedule/schedule_edits.h"
#include "tests/fuzz/fuzz_sample.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rammer;
  static const pipeline::Artifacts a = fuzz::optimizedSample("inception_block");
  auto edits = schedule::parseScheduleEdits(std::string(reinterpret_cast<const char*>(data), size), a.optimized.get(),
                                            "fuzz.json");
  if (!edits) return 0;
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
  const std::vector<std::string> policies = schedule::policyNames();
  pipeline::Options o;
  o.policy = schedule::parsePolicy(policies[hash % policies.size()]).value();
  o.constraints = *edits;
  (void)pipeline::runStages(o, a, pipeline::Stage::Schedule, pipeline::Stage::Simulate);
  return 0;
}
