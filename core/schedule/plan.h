#pragma once
// A Plan: the rKernel chosen for every operator and the sequence of
// rPrograms (one kernel launch each) that run their rTasks. What policies
// produce, the validator checks, the emulator/simulator/codegen consume.
#include <memory>
#include <string>
#include <vector>

#include "core/device/device_spec.h"
#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"
#include "core/schedule/dynamic_program.h"
#include "core/schedule/rprogram.h"

namespace rammer::schedule {

// One rKernel the policy weighed for an operator, estimated alone on the
// device (Rammer §4.2's "fastest" is the least opUs, "most efficient" the
// least smUs).
struct KernelOption {
  std::string kernel;
  int64_t rtasks = 0;
  double opUs = 0;  // the operator's rTasks spread over every vEU
  double smUs = 0;  // SM-microseconds: rTasks x rTask time / vEUs per SM
  bool fits = true;  // runs on an SM at all
};

// A step of how the policy built the plan, for teaching: a wave
// (wavefront), an operator (sequential), a stage (greedy, IOS) or a group
// (GraphTurbo), with the operators it placed and its decision lines: the
// ones the policy logged from the step's start to the next step's.
struct PlanStep {
  std::string title;          // "wave 3", "operator 'conv1'", "stage 2", "group 'b.relu.group'"
  std::vector<int32_t> ops;   // indices into Plan::ops
  size_t firstDecision = 0;   // Plan::decisions[firstDecision, firstDecision + decisions)
  size_t decisions = 0;
};

// An rOperator (Rammer §3.1): one operator of the plan (a live graph node,
// in topological order) with the rKernel that computes it, split into
// kernel.numRTasks rTasks.
struct PlannedOp {
  ir::NodeId node = ir::kNone;
  std::string name;    // node name
  std::string opType;
  bool isView = false;  // aliases its input; no rTasks
  kernels::RKernel kernel;
  std::string kernelRule;   // why this rKernel ("fastest", "most efficient", "pinned", ...)
  std::vector<KernelOption> options;  // every candidate as the policy estimated it
  // Which of `options` the policy found fastest and most efficient (the
  // two Algorithm 1 chooses between); -1 where it chose none (a view, a
  // plan rebuilt from a measured trace). Readers show these, not their own.
  int fastestOption = -1, mostEfficientOption = -1;
  std::vector<int32_t> producers;  // indices of the ops it reads from (through views)
};
// The paper's name, so that `grep ROperator` finds the type.
using ROperator = PlannedOp;

struct ProgramInfo {
  RProgram program;
  int veusPerSM = 0;
  std::string cutReason;  // why a new program started here (teaching view)
  // Set for a program the `dynamic` policy planned: its vEUs take rTasks
  // from a ready queue at run time (dynamic_program.h), and `program` has
  // the vEUs but no instructions.
  std::shared_ptr<const DynamicProgram> dynamic = nullptr;

  size_t numRTasks() const { return dynamic ? static_cast<size_t>(dynamic->numRTasks()) : program.numTasks(); }
};

struct Plan {
  std::string policy;
  device::DeviceSpec device;
  std::vector<PlannedOp> ops;
  std::vector<ProgramInfo> programs;
  std::vector<std::string> decisions;  // one line per policy decision, in order
  std::vector<PlanStep> steps;         // the decisions grouped by step (teaching mode)
  // Set when the policy rewrote the graph it was given (IOS's operator
  // merge): `ops` are nodes of this graph, the one to validate, emulate and
  // generate code from. It keeps every value id of the given graph, so
  // inputs and outputs bind the same way. Null: the given graph.
  std::shared_ptr<const ir::Graph> graph;

  size_t numRTasks() const;
  int totalVEUs(size_t program) const { return programs.at(program).program.numVEUs(); }
};

// The operators program `program` runs (indices into plan.ops, ascending).
std::vector<int32_t> opsOfProgram(const Plan& plan, size_t program);

// The graph `plan` runs: its own when the policy rewrote one, else `given`.
inline const ir::Graph& graphOf(const Plan& plan, const ir::Graph& given) { return plan.graph ? *plan.graph : given; }

}  // namespace rammer::schedule
