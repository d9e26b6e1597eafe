#pragma once
// Teaching mode's content: how the policy built a plan, step by step (a
// wave of Rammer's Algorithm 1, an operator of RammerBase, a stage of IOS,
// a group of GraphTurbo), read from the plan's decision log (Plan::steps)
// and the rKernels each operator weighed, with what the step put where (its
// rProgram, its vEUs, the barrier-rTasks it needed) and a plain-language
// explanation with the numbers. No Qt: TeachingModel wraps it.
#include <string>
#include <vector>

#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::viz {

struct TeachingChoice {
  int32_t op = -1;
  std::string name;    // the operator
  std::string kernel;  // the rKernel chosen
  std::string rule;    // "fastest", "most efficient", "pinned", ...
  std::vector<schedule::KernelOption> options;
  int fastest = -1, mostEfficient = -1;  // indices into options (-1: none)
};

struct TeachingStep {
  std::string title;
  std::vector<int32_t> ops;
  std::vector<TeachingChoice> choices;  // one per non-view operator of the step
  std::vector<std::string> notes;       // the policy's own lines
  std::vector<int> programs;            // the rPrograms its rTasks run in
  int veus = 0;                         // vEUs running its rTasks (over those programs)
  int64_t rtasks = 0;
  int barriers = 0;  // barrier-rTasks placed right before its rTasks: the waits for its producers
  bool atRunTime = false;  // a dynamic program's: any of `veus` may take its rTasks from the ready queue
  std::string explanation;
};

// One step per Plan::steps entry; a plan without steps (an old policy, a
// plan read from elsewhere) gets one step per rProgram. A dynamic plan with
// a trace of its run is explained by that run's dispatch decisions instead
// (dispatch_steps.h): its policy placed no rTask.
std::vector<TeachingStep> teachingSteps(const schedule::Plan& plan, const sim::Trace* trace = nullptr);

// An operator's rKernel choice, and the text that explains choices: the
// options weighed and why the chosen one won.
TeachingChoice teachingChoice(const schedule::Plan& plan, int32_t op);
std::string explainChoices(const std::vector<TeachingChoice>& choices);

// The steps each operator belongs to (-1: none), for the trace so far.
std::vector<int> stepOfOps(const schedule::Plan& plan, const std::vector<TeachingStep>& steps);

// `trace` with only the rTasks of steps 0..last (and the barriers right
// before them): the plan as built so far.
sim::Trace traceUpTo(const sim::Trace& trace, const std::vector<int>& stepOfOp, int last);

}  // namespace rammer::viz
