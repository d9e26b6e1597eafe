#pragma once
// All ready operators form a stage; stages run one after another in a single
// rProgram, every rTask of a stage waiting for every rTask of the previous
// one (a global barrier); rTasks go to the vEU that frees up first.
#include "core/schedule/policy.h"

namespace rammer::schedule {

class GreedyPolicy : public Policy {
 public:
  explicit GreedyPolicy(PolicyOptions options = {}) : Policy(std::move(options)) {}
  std::string name() const override { return policyName(PolicyId::Greedy); }
  ir::Result<Plan> schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                            const Constraints& constraints) const override;
};

}  // namespace rammer::schedule
