#pragma once
// A persistent program only where it pays (issue #45 item 5): Rammer must
// never be slower than RammerBase. A persistent kernel wins by running
// independent operators side by side; on a chain it has nothing to overlap
// and pays instead, a barrier hand-off where a launch boundary would be
// and rTasks beside waiting vEUs under the register budget of the
// program's largest rKernel (the fourth lease: alexnet at 0.87x of
// RammerBase, resnext29 at 0.93x). So the Schedule stage also plans the
// graph as RammerBase does (the sequential policy: a launch per operator)
// and keeps each persistent program only where the cost model predicts it
// no slower than its operators as launches.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule/plan.h"
#include "core/schedule/policy.h"
#include "core/sim/cost_model.h"

namespace rammer::pipeline {

struct LaunchChoice {
  std::vector<size_t> replaced;  // programs of the policy's plan now planned as launches
  // Predicted: the policy's plan, the plan chosen, RammerBase's.
  double persistentUs = 0, chosenUs = 0, launchesUs = 0;
  std::string summary;  // "program 0 (12 operators): 354.4 us persistent, 312.5 us as launches"
};

// Replaces in `chosen` each static program the cost model predicts slower
// than its operators' programs in `launches` (the sequential plan of the
// same graph) by those programs, the operators taking their rKernels from
// `launches` too; a program's time is from the end of the one before it
// to its own end. nullopt (`chosen` as it was) when the plans' operators
// differ (a policy that merges or groups operators), a simulation fails,
// or the chosen plan would be predicted no faster.
std::optional<LaunchChoice> chooseLaunches(schedule::Plan& chosen, const schedule::Plan& launches,
                                           std::shared_ptr<const sim::CostModel> model);

// Whether `policy`'s plans are weighed against launches: the static
// policies that plan the graph's operators as they are (not RammerBase
// itself, not the dynamic policy's ready queue, not IOS's merges or
// GraphTurbo's groups, whose operators RammerBase's plan does not have).
bool weighsLaunches(schedule::PolicyId policy);

// Plans `from` (the graph `chosen` was planned from) with the sequential
// policy and `model`'s task times, then chooses as chooseLaunches does.
std::optional<LaunchChoice> weighLaunches(schedule::Plan& chosen, const ir::Graph& from,
                                          const device::DeviceSpec& device, std::shared_ptr<const sim::CostModel> model,
                                          const std::function<bool()>& cancelled);

}  // namespace rammer::pipeline
