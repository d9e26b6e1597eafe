#pragma once
// What every policy shares: fetching candidate rKernels, the operator DAG,
// checking Constraints against the graph, estimating rKernels, recording
// choices and decisions, and turning the policy's placements into
// rPrograms (applying pinned orders and emitting barriers through
// RProgram::wait/append).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/schedule/operator_graph.h"
#include "core/schedule/policy.h"
#include "core/schedule/resident_pins.h"
#include "core/schedule/rtask_needs.h"
#include "core/schedule/vdevice.h"

namespace rammer::schedule {

// An rProgram as a policy builds it: placements in append order.
struct ProgramDraft {
  std::vector<int32_t> ops;                        // operators placed in it, in order
  std::vector<std::pair<RTask, int>> placements;  // (rTask, vEU), append order
  // Extra operator-level dependencies beyond the dataflow (greedy's stage barriers).
  std::map<int32_t, std::vector<int32_t>> extraDeps;
  VDevice layout;
  std::string cutReason;
};

// Estimates of one candidate rKernel run alone.
struct KernelEstimate {
  bool fits = false;       // runs on an SM at all
  int veusPerSM = 0;
  int numVEUs = 0;
  double taskUs = 0;       // one rTask
  double opUs = 0;         // whole operator spread over all vEUs: ceil(rTasks / vEUs) x taskUs
  double smUs = 0;         // resource-time: rTasks x taskUs / veusPerSM (SM-microseconds)
};

class PlanBuilder {
 public:
  // Fetches candidates for every node and checks the constraints' names.
  static ir::Result<PlanBuilder> start(std::string policy, const ir::Graph& graph, const device::DeviceSpec& device,
                                       const Constraints& constraints, const PolicyOptions& options);

  const OperatorGraph& dag() const { return dag_; }
  const device::DeviceSpec& device() const { return plan_.device; }
  const std::vector<kernels::RKernel>& candidates(int32_t op) const { return candidates_.at(static_cast<size_t>(op)); }
  const std::string& opName(int32_t op) const { return dag_.ops.at(static_cast<size_t>(op)).name; }
  // "name" for messages, "conv1" or "#3 (Relu)" when unnamed.
  std::string label(int32_t op) const;

  double taskTime(const kernels::RKernel& k, int veusPerSM) const { return options_.taskTime(k, plan_.device, veusPerSM); }
  double taskTimeUnder(const kernels::RKernel& k, const TaskLoad& load) const {
    return options_.loadedTaskTime ? options_.loadedTaskTime(k, plan_.device, load) : taskTime(k, load.veusPerSM);
  }
  // `veusPerSM` > 0: the estimate at that vDevice shape (fits = the
  // rKernel's registers fit the budget it leaves a vEU); 0: at as many vEUs
  // as the rKernel alone allows.
  KernelEstimate estimate(const kernels::RKernel& k, int veusPerSM = 0) const;
  // The candidate with the least operator time / SM-time (at a shape: of
  // those that fit it; the first when none does).
  size_t fastest(int32_t op, int veusPerSM = 0) const;
  size_t mostEfficient(int32_t op, int veusPerSM = 0) const;
  // Index of the pinned candidate; -1 when none is pinned.
  int pinnedKernel(int32_t op) const;

  // Records the chosen rKernel, its rule and a decision line.
  void choose(int32_t op, size_t candidate, const std::string& rule, const std::string& why);
  // Pinned rKernel if any, else the fastest (RammerBase's choice).
  void choosePinnedOrFastest(int32_t op);
  // Sets the operator's rKernel without a decision line (a policy trying
  // alternatives; the one it keeps goes through choose()).
  void tryKernel(int32_t op, size_t candidate);
  // The vEUs per SM a schedule edit pins the operator's program to; 0: none.
  int pinnedShape(int32_t op) const;
  const kernels::RKernel& kernel(int32_t op) const { return plan_.ops.at(static_cast<size_t>(op)).kernel; }
  int64_t numRTasks(int32_t op) const { return kernel(op).numRTasks; }

  // The vDevice of a program of these operators' chosen rKernels, at
  // `veusPerSM` vEUs per SM (0: as many as fit).
  ir::Result<VDevice> layout(const std::vector<int32_t>& ops, int veusPerSM = 0, int64_t reservedSharedBytes = 0) const;

  bool cutBefore(int32_t op) const;
  bool noCutBefore(int32_t op) const;
  // Whether any schedule edit names the operator (a pinned rKernel or
  // rTask, a cut); IOS does not merge such operators away.
  bool edited(int32_t op) const;
  // The vEU `task` is pinned to, -1 when free; an error when the pin is out
  // of range. Without a schedule edit's pin, a persistent cell's rTask is
  // pinned to its weight slice's home (resident_pins.h).
  ir::Result<int> pinnedVEU(RTask task, int numVEUs) const;

  // A decision line; it also goes to the open step, if any.
  void decide(std::string line);
  // Opens the next step (a wave, an operator, a stage, a group): the
  // decision lines until the next step are its decisions.
  void beginStep(std::string title, std::vector<int32_t> ops);

  // Whether the caller asked to stop (PolicyOptions::cancelled); policies
  // then return cancelledError().
  bool cancelled() const { return options_.cancelled && options_.cancelled(); }
  static ir::Diagnostic cancelledError();

  // Applies pinned orders, finds an append order that places every producer
  // before its consumers, and builds the rPrograms with wait/append.
  ir::Result<Plan> finish(std::vector<ProgramDraft> drafts) &&;
  // The `dynamic` policy's ending: each draft becomes a dynamic program
  // (dynamic_program.h) of its operators, prioritized by their estimated
  // time at the draft's shape; `placements` are ignored. A pin of an rTask
  // to a vEU or an order is refused: vEUs take rTasks at run time.
  ir::Result<Plan> finishDynamic(std::vector<ProgramDraft> drafts) &&;

 private:
  PlanBuilder() = default;
  ir::Result<RProgram> materialize(const ProgramDraft& draft, const RTaskNeeds& needs) const;
  const TaskPin* pinFor(RTask task) const;

  const ir::Graph* graph_ = nullptr;  // the policy's graph; outlives the builder
  PolicyOptions options_;
  Constraints constraints_;
  OperatorGraph dag_;
  std::vector<std::vector<kernels::RKernel>> candidates_;
  std::map<int32_t, std::vector<size_t>> pinsByOp_;  // indices into constraints_.pins
  // Given out as policies ask for them; none where no weights stay on chip
  // (RammerBase, the dynamic policy, PolicyOptions::residentCells off).
  mutable std::optional<ResidentHomes> residentHomes_;
  Plan plan_;
};

// "1.23 us" with three significant digits, for decision lines.
std::string formatUs(double us);

}  // namespace rammer::schedule
