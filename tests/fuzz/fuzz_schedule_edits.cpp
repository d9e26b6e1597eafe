// Schedule-edit JSON against a sample model: parsed, planned with every
// policy, validated. A refused edit is a diagnostic; a crash is a finding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

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
  for (const std::string& policy : schedule::policyNames()) {
    pipeline::Options o;
    o.policy = policy;
    o.constraints = *edits;
    (void)pipeline::runStages(o, a, pipeline::Stage::Schedule, pipeline::Stage::Simulate);
  }
  return 0;
}
