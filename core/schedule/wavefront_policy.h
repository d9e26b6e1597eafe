#pragma once
// Rammer's Algorithm 1: operators are scheduled wave by wave (the BFS fringe
// of the DAG); each wave gets the fastest rKernels, or the most efficient
// ones when the fastest would oversubscribe the vEUs; each rTask goes to the
// vEU that can start it earliest; a new rProgram starts only when appending
// the wave would finish later than launching a new kernel for it.
#include "core/schedule/policy.h"

namespace rammer::schedule {

class WavefrontPolicy : public Policy {
 public:
  explicit WavefrontPolicy(PolicyOptions options = {}) : Policy(std::move(options)) {}
  std::string name() const override { return policyName(PolicyId::Wavefront); }
  ir::Result<Plan> schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                            const Constraints& constraints) const override;
};

}  // namespace rammer::schedule
