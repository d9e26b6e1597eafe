#pragma once
// GraphTurbo (Zhao et al., OSDI'23) on the vDevice. Producer-consumer
// sub-graphs become fused groups that fit a vEU's shared memory
// (graphturbo_grouping.h); each group is one rOperator whose rTasks are its
// instances (kernels/fused_group_kernels.h), so intermediates never reach
// global memory. Operators outside every group keep their fastest rKernel.
// Instances are ordered breadth-first (group by group, wave by wave) or
// depth-first (a consumer right after its producers, chain by chain), the
// cheaper by the cost model under "auto", and bound to the vEU that frees
// first (load balance). All of it is one rProgram unless a cut edit says
// otherwise. A consumer group's instance waits only for the producer
// instances whose pieces it reads (rtask_needs.h), and RProgram::append
// inserts a barrier only where one of them ran on another vEU. When groups
// form, the plan carries the rewritten graph (Plan::graph).
#include "core/schedule/policy.h"

namespace rammer::schedule {

class GraphTurboPolicy : public Policy {
 public:
  explicit GraphTurboPolicy(PolicyOptions options = {}) : Policy(std::move(options)) {}
  std::string name() const override { return policyName(PolicyId::GraphTurbo); }
  ir::Result<Plan> schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                            const Constraints& constraints) const override;
};

// The instance budget GraphTurboOptions::budgetBytes = 0 stands for.
int64_t defaultGroupBudget(const device::DeviceSpec& device);

}  // namespace rammer::schedule
