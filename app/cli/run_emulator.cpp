#include "app/cli/run_emulator.h"

#include <fmt/core.h>

#include "app/cli/model_loading.h"
#include "core/exec/plan_emulator.h"
#include "app/cli/trace_file.h"

namespace rammer::cli {

std::vector<ir::Tensor> runOnEmulator(const ir::Graph& optimized, const std::vector<ir::Tensor>& inputs,
                                      const EmulatorRunRequest& request, Progress& progress) {
  const PlannedModel planned = planGraph(optimized, request.plan, progress);
  const schedule::Plan& plan = planned.plan;
  progress.status(fmt::format("scheduled in {}: {} rTasks in {} programs", formatSeconds(planned.scheduleSeconds),
                              plan.numRTasks(), plan.programs.size()));

  exec::EmulatorOptions options;
  options.threads = request.threads;
  options.trace = !request.traceFile.empty();
  options.progress = [&progress](size_t done, size_t total) { progress.steps("emulating", done, total); };
  auto result = exec::emulatePlan(plan, optimized, inputs, options);
  if (!result) throwDiagnostics(result.errors(), "emulating the " + plan.policy + " plan");
  progress.status(fmt::format("emulated on {} threads in {}", result->threads, formatSeconds(result->seconds)));

  if (result->trace) writeTraceFile(request.traceFile, *result->trace);
  return std::move(result->outputs);
}

}  // namespace rammer::cli
