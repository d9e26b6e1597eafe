#pragma once
// IOS (Ding et al., MLSys'21) on the vDevice: the schedule is a sequence of
// stages chosen by IOS's dynamic program over endings (ios_search.h); a
// stage runs its groups concurrently and the operators of a group in
// sequence, or (operator merge) computes operators of one type on one input
// as one wider operator and a Split (operator_merge.h). Stages are
// synchronous: by default all stages share one rProgram with a global
// barrier between them (where Rammer's wavefront waits only on the
// producers of each rTask), or, with IosOptions::programs = "stage", each
// stage is its own rProgram (one launch, its vDevice fitted to the stage).
//
// A stage's cost is the cost model's: the longest group, its rTasks priced
// under the load the stage puts on the device, or, when the device is the
// limit, the stage's resource time over the SMs, plus the barrier (or
// launch) that ends it. Every operator gets its fastest rKernel (or the
// pinned one), as IOS keeps cuDNN's kernels.
//
// Variants (IosOptions::variant): "parallel" (concurrent groups), "merge"
// (merges, otherwise one operator per stage), "both". When the chosen
// schedule merges, the plan carries the rewritten graph (Plan::graph).
#include "core/schedule/policy.h"

namespace rammer::schedule {

class IosPolicy : public Policy {
 public:
  explicit IosPolicy(PolicyOptions options = {}) : Policy(std::move(options)) {}
  std::string name() const override { return policyName(PolicyId::Ios); }
  ir::Result<Plan> schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                            const Constraints& constraints) const override;
};

}  // namespace rammer::schedule
