#include "app/cli/run_emulator.h"

#include <fmt/core.h>

#include "app/cli/pipeline_driver.h"
#include "app/cli/trace_file.h"

namespace rammer::cli {

PlanRunOutputs runOnEmulator(std::shared_ptr<const ir::Graph> original, const std::string& model,
                             const std::vector<ir::Tensor>& inputs, const EmulatorRunRequest& request,
                             Progress& progress) {
  pipeline::Pipeline p =
      planRunPipeline(std::move(original), model, request.plan, pipeline::RunTarget::Emulator, inputs,
                      request.checkOutputs);
  exec::EmulatorOptions& emulator = p.options().run.emulator;
  emulator.threads = request.threads;
  emulator.trace = !request.traceFile.empty();
  p.options().run.maxMemoryBytes = request.maxMemoryBytes;
  runStages(p, pipeline::Stage::Optimize, pipeline::Stage::Run, progress);

  const pipeline::Artifacts& a = p.artifacts();
  progress.status(fmt::format("scheduled in {}: {} rTasks in {} programs", formatSeconds(a.scheduleSeconds),
                              a.plan->numRTasks(), a.plan->programs.size()));
  const exec::EmulationResult& emulated = *a.run->emulator;
  progress.status(fmt::format("emulated on {} threads in {}", emulated.threads, formatSeconds(emulated.seconds)));
  if (a.run->trace) writeTraceFile(request.traceFile, *a.run->trace);
  return PlanRunOutputs{a.planGraph(), a.run->outputs, a.run->check};
}

}  // namespace rammer::cli
