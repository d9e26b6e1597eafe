#pragma once
// Which barriers of a valid plan are needed. Deleting one barrier alone
// either leaves some rTask unordered after a producer rTask (a Dependency
// problem, the same the validator would report on the edited plan) or
// breaks nothing (the barrier is redundant).
//
// Built once per plan: the validator's vector clocks of every program are
// kept, and each question re-derives only the knowledge that the deleted
// barrier fed, barrier by barrier in happens-before order, stopping at the
// first unordered rTask or where knowledge comes out as before. A question
// costs a small part of a checkPlan run on the edited plan (which gives the
// same verdict; tests compare the two), so every barrier of the big samples
// can be asked about.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"
#include "core/schedule/rtask_needs.h"
#include "core/schedule/validator.h"

namespace rammer::schedule {

class BarrierRemoval {
 public:
  // Fails with the validator's problems when the plan is not valid. The plan
  // is not copied: it must outlive the analysis.
  static ir::Result<BarrierRemoval> analyse(const Plan& plan, const ir::Graph& graph);

  struct Verdict {
    bool needed = false;
    // When needed: the first unordered consumer / producer pair, with slots
    // as in the plan without the barrier (later orders on its vEU move up one).
    PlanProblem problem;
  };
  // Error when there is no barrier at `at`, or when another barrier waits on
  // that barrier's own slot (deleting it would renumber that wait; check the
  // edited plan with checkPlan instead).
  ir::Result<Verdict> without(int program, Slot at) const;

  // Every barrier, program by program, vEU by vEU, in stream order.
  std::vector<std::pair<int, Slot>> barriers() const;

  ~BarrierRemoval();
  BarrierRemoval(BarrierRemoval&&) noexcept;
  BarrierRemoval& operator=(BarrierRemoval&&) noexcept;

 private:
  struct Program;
  BarrierRemoval();
  const Plan* plan_ = nullptr;
  std::vector<std::vector<int32_t>> producers_;  // as the graph has them (producersFromGraph)
  RTaskNeeds needs_;                             // rTask-grain needs (GraphTurbo's instances)
  std::vector<std::unique_ptr<Program>> programs_;
};

}  // namespace rammer::schedule
