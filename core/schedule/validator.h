#pragma once
// Proves a Plan safe to run: every rTask runs exactly once; each rTask's
// producer rTasks have finished before it starts (earlier program, earlier on
// the same vEU, or a barrier chain that covers them); no barriers wait on
// each other in a cycle (deadlock); and each program's vEUs fit the device
// and can all be resident at once (otherwise a barrier may wait forever for
// a block that never gets an SM). Problems name the rTasks as
// "op[rtask]" with their program, vEU and order.
#include <cstddef>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"

namespace rammer::schedule {

enum class ProblemKind {
  Structure,   // an instruction names no real rTask, or the plan does not match the graph
  Coverage,    // an rTask missing or run more than once
  Dependency,  // an rTask may start before a producer rTask finishes
  Deadlock,    // barriers wait for each other, or for a slot that does not exist
  Resources,   // vEUs too big for the device, or more vEUs than can be co-resident
};
std::string problemKindName(ProblemKind k);

struct PlanProblem {
  ProblemKind kind = ProblemKind::Structure;
  std::string message;
  int program = -1;
  std::vector<RTask> tasks;  // the offending rTasks (consumer first for dependencies)
  std::vector<Slot> places;    // where they are, in the same order where known
  std::string node;            // the operator the problem is reported on
};

struct ValidationReport {
  std::vector<PlanProblem> problems;
  size_t omitted = 0;  // problems beyond the cap, counted but not listed
  bool ok() const { return problems.empty(); }
  size_t count(ProblemKind k) const;
};

// Each plan operator's producers as the graph has them (through views), not
// as the plan lists them, so that a plan that forgot a dependency is still
// caught. An operator the graph lacks keeps the plan's list; graph operators
// missing from the plan, or a graph without topological order, come back as
// Structure problems.
std::vector<std::vector<int32_t>> producersFromGraph(const Plan& plan, const ir::Graph& graph,
                                                     std::vector<PlanProblem>& problems);

// How the validator words an rTask that may start before a producer rTask
// of the same program finishes.
PlanProblem unorderedProducer(const Plan& plan, int program, RTask consumer, Slot at, RTask producer,
                              Slot producerAt);

// At most `maxProblems` problems are listed.
ValidationReport checkPlan(const Plan& plan, const ir::Graph& graph, size_t maxProblems = 200);
// The same as diagnostics (errors), plus one note when problems were omitted.
std::vector<ir::Diagnostic> validate(const Plan& plan, const ir::Graph& graph);
// A report as diagnostics: one error per problem, naming its node and its
// first rTask, plus the note about omitted problems.
std::vector<ir::Diagnostic> diagnosticsOf(const ValidationReport& report);

}  // namespace rammer::schedule
