#pragma once
// `--policy dynamic` (issue #31): Rammer's rKernel choice, no static
// placement. Each operator gets the fastest rKernel, or the most efficient
// one when the fastest one's rTasks alone outnumber the vEUs (Algorithm 1's
// rule, per operator: there are no waves to weigh together); operators go
// into one rProgram until a schedule edit cuts or the vDevice cannot hold
// the next operator's rKernel; each program is a dynamic program
// (dynamic_program.h) whose vEUs take rTasks from a ready queue at run time,
// highest priority (longest predicted path to the end) first.
#include <string>

#include "core/schedule/policy.h"

namespace rammer::schedule {

class DynamicPolicy final : public Policy {
 public:
  using Policy::Policy;
  std::string name() const override { return policyName(PolicyId::Dynamic); }
  ir::Result<Plan> schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                            const Constraints& constraints) const override;
};

}  // namespace rammer::schedule
