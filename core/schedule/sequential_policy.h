#pragma once
// RammerBase: one rProgram (kernel launch) per operator, the fastest rKernel for
// each, its rTasks dealt round-robin over the vEUs.
#include "core/schedule/policy.h"

namespace rammer::schedule {

class SequentialPolicy : public Policy {
 public:
  explicit SequentialPolicy(PolicyOptions options = {}) : Policy(std::move(options)) {}
  std::string name() const override { return policyName(PolicyId::Sequential); }
  ir::Result<Plan> schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                            const Constraints& constraints) const override;
};

}  // namespace rammer::schedule
