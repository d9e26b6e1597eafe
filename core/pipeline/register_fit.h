#pragma once
// A plan's register budget from its compiled code (issue #45 item 5): no
// plan the policies produce may spill. The policies size a vDevice by the
// rKernels' register estimates, but a persistent kernel needs more than
// its largest rKernel: ptxas gives a kernel that calls many rKernel
// functions more registers than any one of them takes (resnext29's
// wavefront program: 119 for its largest function alone, 179 for all 20),
// and its dispatch loop stays live around every call. Only the compiler
// knows. So the plan is compiled (NVRTC) and every program that spills is
// changed, and the policy plans again:
//  - a program of several rKernel functions is split in two (a cut before
//    the operator where half of its functions have been called), so each
//    kernel calls fewer;
//  - where that is not possible, or its operators spilled in three rounds
//    before, their rKernels get one register more than the
//    kernel had: the policy then takes a vDevice of fewer vEUs per SM
//    (more registers each) or other variants, whichever the cost model
//    prefers.
// Until nothing spills, nothing is left to change, or a few rounds passed.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/runtime/resource_check.h"
#include "core/schedule/constraints.h"
#include "core/schedule/plan.h"
#include "core/schedule/policy.h"

namespace rammer::pipeline {

// The registers an operator's rKernel needs at least, by (operator name,
// rKernel name): above the budget it was compiled at and spilled.
using RegisterNeeds = std::map<std::pair<std::string, std::string>, int>;

// What to change of a plan that spills.
struct RegisterAdvice {
  RegisterNeeds needs;
  std::set<std::string> cutBefore;  // operators that start a program (Constraints::cutBefore)
  std::set<std::string> spilled;    // the operators the compile spilled on
  bool empty() const { return needs.empty() && cutBefore.empty(); }
};

// What the compiled programs say, per program that spills, about the
// operators it spilled on (its spilling functions', or all of its own when
// the kernel's frame spills): while none of them has spilled in three
// earlier rounds (`spilledBefore`: operator -> rounds), a cut where the program has called half of
// its rKernel functions (none before its first operator, where
// `constraints` forbid one, or, `cuttable` given, before an operator it
// does not name); else, or when it cannot be split, one
// register more than its kernel had for those operators' rKernels. Empty
// when nothing spills, or when nothing is left to change (every spilling
// operator at the most registers a thread may have).
RegisterAdvice registerAdviceOf(const schedule::Plan& plan, const codegen::GeneratedProgram& program,
                                const std::vector<runtime::ProgramResources>& compiled,
                                const schedule::Constraints& constraints,
                                const std::map<std::string, int>& spilledBefore,
                                const std::set<std::string>& cuttable = {});

// `source` with each candidate's register estimate raised to its need.
schedule::KernelSource withRegisterNeeds(schedule::KernelSource source, std::shared_ptr<const RegisterNeeds> needs);

struct RegisterFit {
  schedule::Plan plan;
  RegisterAdvice advice;  // all that the rounds found
  int replans = 0;
  int64_t spillBytes = 0;  // what the last compile still spilled (0: none)
  std::vector<std::string> log;  // one line per round
};

// Compiles `plan` (scheduled from `graph` under `constraints`) for `arch`
// with NVRTC and, while it spills, plans again with `replan(advice)` (the
// same policy and options, the advice's cuts added to the constraints and
// its kernel source wrapped by withRegisterNeeds), at most `maxRounds`
// times. Errors: NVRTC missing, a compile error, or a replan's error.
struct RegisterFitOptions {
  std::vector<std::string> nvrtcLibraries;
  std::string arch;  // empty: the plan's device's
  std::function<bool()> cancelled;
  int maxRounds = 6;
};
ir::Result<RegisterFit> fitRegisters(schedule::Plan plan, const ir::Graph& graph,
                                     const schedule::Constraints& constraints,
                                     const std::function<ir::Result<schedule::Plan>(const RegisterAdvice&)>& replan,
                                     const RegisterFitOptions& options);

// The Schedule stage's fit: `chosen`, planned by `makePolicy({})` from
// `from` (`fromShared` when that graph is not the stage's own, attention
// fused: the replans get it as their graph) under `constraints`, fitted with
// plans of `makePolicy(needs)` and the advice's cuts.
using PolicyWithNeeds = std::function<std::unique_ptr<schedule::Policy>(const RegisterNeeds&)>;
ir::Result<RegisterFit> fitScheduledPlan(const schedule::Plan& chosen, const ir::Graph& from,
                                         std::shared_ptr<const ir::Graph> fromShared, const device::DeviceSpec& device,
                                         const schedule::Constraints& constraints, const PolicyWithNeeds& makePolicy,
                                         const RegisterFitOptions& options);

}  // namespace rammer::pipeline
