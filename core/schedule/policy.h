#pragma once
// A scheduling policy turns the optimized graph into a Plan: an rKernel per
// operator and a sequence of rPrograms placing every rTask on a vEU. All
// policies honour the person's Constraints (pinned rKernels, pinned rTasks,
// forced or forbidden program cuts) and explain themselves in
// Plan::decisions.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/device/device_spec.h"
#include "core/ir/graph.h"
#include "core/kernels/kernel_library.h"
#include "core/schedule/constraints.h"
#include "core/schedule/plan.h"
#include "core/schedule/policy_registry.h"

namespace rammer::schedule {

// Where candidate rKernels come from (the kernel library; tests pass fakes).
using KernelSource = std::function<ir::Result<kernels::OperatorKernels>(const ir::Graph&, ir::NodeId)>;

// Estimated microseconds one rTask of `kernel` takes on one vEU when
// `veusPerSM` vEUs share each SM. Replaceable by the simulator's CostModel.
using TaskTimeFn = std::function<double(const kernels::RKernel& kernel, const device::DeviceSpec& device, int veusPerSM)>;

// How busy the device is when an rTask starts: the vEUs per SM (the
// program's occupancy) and the vEUs running an rTask on its SM and on the
// whole device, itself included. 0 means all of them (a busy device).
struct TaskLoad {
  int veusPerSM = 1;
  int busyOnSM = 0;
  int busyVEUs = 0;
  // Other vEUs of its program on its SM that are waiting at a barrier (they
  // poll, taking issue slots and memory traffic from it; measured, rTasks
  // beside three waiting vEUs run about 1.4x longer). Policies pass 0.
  int waitingOnSM = 0;
};
// The estimate under a given load (the simulator's CostModel); policies
// that know how much of the device a stage leaves idle ask it (IOS).
using LoadedTaskTimeFn =
    std::function<double(const kernels::RKernel& kernel, const device::DeviceSpec& device, const TaskLoad& load)>;

// The roofline of one rTask on a vEU, the one formula behind every
// estimate (this file's and sim::AnalyticCostModel's): the vEU gets 1/onSM
// of its SM's FP32 rate, and no more than its threads can issue (one FLOP
// per lane of the SM's subPartitions x warpSize lanes per cycle-share), and
// 1/running of the device's memory bandwidth. Neither term is divided by
// the family's efficiency yet.
struct RooflineTerms {
  double computeUs = 0, memoryUs = 0;
};
RooflineTerms rooflineTerms(const kernels::RKernel& kernel, const device::DeviceSpec& device, int onSM, int running);

// The built-in estimate on a busy device (every vEU running): the slower
// of the roofline's terms over the family's efficiency on the device
// (DeviceSpec::efficiencyOf). The pipeline hands policies the cost model's
// estimate instead (sim::policyOptions), which equals this one on a busy
// device wherever the threads, not the device, are not the limit.
double estimateTaskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device, int veusPerSM);

// Microseconds one rTask's global-memory traffic takes at the device's full
// bandwidth, each tier at its own: the kernel's L2 re-reads at the L2
// bandwidth, the rest at DRAM's. Callers scale it by how many vEUs share
// the bandwidth.
double rtaskMemoryUs(const kernels::RKernel& kernel, const device::DeviceSpec& device);

// IOS's search parameters (`rammer --ios-r --ios-s --ios-variant`).
struct IosOptions {
  int maxGroupOps = 3;  // r: operators per group
  int maxGroups = 8;    // s: groups per stage
  // "parallel" (concurrent groups only), "merge", "both".
  std::string variant = "parallel";
  // How stages become rPrograms: "one" (all stages in one persistent
  // kernel, a barrier between stages: the cheaper boundary, one vDevice for
  // every operator; predicted faster on every sample) or "stage" (one
  // kernel launch per stage, its vDevice fitted to the stage).
  std::string programs = "one";
  // Operators per block: the DP runs on consecutive blocks of the
  // topological order (IOS partitions large networks the same way), so its
  // states stay bounded on models of thousands of operators.
  int blockOps = 16;
  // Endings the DP may try in one block. The DP is exponential in a block's
  // width: 16 independent operators have 3^16 (43 million) endings, 30 s of
  // search. A block over the budget is searched again as two halves, and
  // the blocks after it keep the smaller size; the samples stay far below.
  size_t maxBlockEndings = 4'000'000;

  bool operator==(const IosOptions&) const = default;
};

// GraphTurbo's options (`rammer --gt-order --gt-budget`).
struct GraphTurboOptions {
  // Instance order: "bfs" (every instance of a group before the next
  // group's: wave by wave), "dfs" (a consumer right after its producers,
  // chain by chain, while their output is still on chip) or "auto" (the
  // order the cost model predicts faster).
  std::string order = "auto";
  // Fast memory one instance may use, in bytes; 0: a quarter of an SM's
  // shared memory (at least four vEUs per SM), capped by what one block may
  // opt in to.
  int64_t budgetBytes = 0;

  bool operator==(const GraphTurboOptions&) const = default;
};

// The order each vEU runs the rTasks a static policy placed on it: by the
// longest remaining path (critical_order.h), or as the policy appended them.
enum class RTaskOrder { CriticalPath, Policy };

struct PolicyOptions {
  KernelSource kernelSource = kernels::kernelsFor;
  TaskTimeFn taskTime = estimateTaskTimeUs;
  // Empty: taskTime, as if the device were busy.
  LoadedTaskTimeFn loadedTaskTime;
  // A barrier-rTask's hand-off, a producer's end to its consumer's start
  // (the critical-path order weighs it). Empty: the device's barrier latency.
  std::function<double(const device::DeviceSpec&)> handoffTime;
  // Polled while planning (per operator, wave or stage, and every thousand
  // rTasks placed); once it returns true the policy stops with the error
  // "scheduling cancelled". Empty: never.
  std::function<bool()> cancelled;
  IosOptions ios;
  GraphTurboOptions graphturbo;
  RTaskOrder order = RTaskOrder::CriticalPath;
  // Recurrent cells may keep their weight slices in shared memory across
  // steps (resident_pins.h), where the policy places rTasks at compile time
  // in persistent programs (not RammerBase, not the dynamic policy).
  bool residentCells = true;
};

class Policy {
 public:
  explicit Policy(PolicyOptions options) : options_(std::move(options)) {}
  virtual ~Policy() = default;
  Policy(const Policy&) = delete;
  Policy& operator=(const Policy&) = delete;

  virtual std::string name() const = 0;
  virtual ir::Result<Plan> schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                                    const Constraints& constraints) const = 0;

 protected:
  const PolicyOptions& options() const { return options_; }

 private:
  PolicyOptions options_;
};

// The registry's names in its order (policy_registry.h): "sequential"
// (RammerBase), "wavefront" (Rammer), "greedy", "ios" (IOS), "graphturbo"
// (GraphTurbo), "dynamic" (vEUs take rTasks from a ready queue at run time,
// dynamic_program.h).
std::vector<std::string> policyNames();
// The policies that place every rTask on a vEU at compile time: all but
// "dynamic" (which refuses a pin to a vEU).
std::vector<std::string> staticPolicyNames();
// A policy by name or alias (case-insensitive); an error listing the names
// otherwise.
ir::Result<std::unique_ptr<Policy>> makePolicy(const std::string& name, PolicyOptions options = {});
// The policy `id` stands for.
std::unique_ptr<Policy> makePolicy(PolicyId id, PolicyOptions options = {});

}  // namespace rammer::schedule
