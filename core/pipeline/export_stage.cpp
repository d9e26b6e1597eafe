#include "core/pipeline/export_stage.h"

#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"

namespace rammer::pipeline {

ir::Result<codegen::ExportSummary> exportProject(const codegen::GeneratedProgram& program, const schedule::Plan& plan,
                                                 const ir::Graph& graph, const ir::Graph& original,
                                                 const ProjectOptions& options, const StageContext& context) {
  if (options.dir.empty()) return ir::makeError("no folder to export the project into");
  auto progress = [&context](const std::string& what, double within) {
    if (context.progress) context.progress(what, within);
  };
  // The inputs bind to the imported graph's inputs: the optimized graph has
  // the same ones, in the same order.
  auto inputs = exec::makeRandomInputs(original, options.inputSeed, options.maxMemoryBytes);
  if (!inputs) return inputs.errors();
  exec::ReferenceOptions ref;
  ref.cancel = context.cancel;
  ref.maxMemoryBytes = options.maxMemoryBytes;
  ref.progress = [&progress](size_t done, size_t total) {
    progress("Computing the expected outputs (" + std::to_string(done) + " of " + std::to_string(total) +
                 " operators)...",
             0.8 * static_cast<double>(done) / static_cast<double>(std::max<size_t>(total, 1)));
  };
  auto expected = exec::runReference(original, *inputs, ref);
  if (context.cancelled()) return ir::makeError("cancelled");
  if (!expected) return expected.errors();

  progress("Writing " + options.dir.string() + "...", 0.85);
  codegen::ExportData data;
  data.modelName = options.modelName;
  data.policy = plan.policy;
  data.device = plan.device.id;
  data.inputs = std::move(inputs).value();
  data.expected = std::move(expected).value();
  return codegen::writeProject(options.dir, program, schedule::graphOf(plan, graph), data);
}

}  // namespace rammer::pipeline
