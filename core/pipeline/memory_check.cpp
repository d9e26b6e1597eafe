#include "core/pipeline/memory_check.h"

#include "core/exec/memory_budget.h"

namespace rammer::pipeline {

std::optional<ir::Diagnostic> cpuRunMemoryProblem(const ir::Graph& graph, const RunOptions& run) {
  const RunTarget t = run.target;
  if (t != RunTarget::Emulator && t != RunTarget::Host) return std::nullopt;
  exec::MemoryEstimate e = exec::estimateReferenceRun(graph, /*scratch=*/false);
  e.lowerBound = true;
  return exec::checkMemoryBudget(e, run.maxMemoryBytes,
                                 t == RunTarget::Emulator ? "the emulator" : "the generated code on the CPU");
}

}  // namespace rammer::pipeline
