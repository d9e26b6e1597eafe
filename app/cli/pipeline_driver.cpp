#include "app/cli/pipeline_driver.h"

#include "app/cli/model_loading.h"
#include "core/schedule/policy_registry.h"

namespace rammer::cli {

namespace {

// What the failed stage was doing, as the CLI's messages always said it.
std::string contextOf(const pipeline::Pipeline& p, pipeline::Stage stage) {
  switch (stage) {
    case pipeline::Stage::Optimize: return "optimizing";
    case pipeline::Stage::Schedule: return "scheduling";
    case pipeline::Stage::Validate:
      // With an edits file the pipeline's first error already says which edits break the plan.
      return p.options().scheduleEditsFile.empty() ? "the plan is invalid" : "";
    case pipeline::Stage::Simulate: return "simulating";
    case pipeline::Stage::Run: return "running the " + schedule::policyName(p.options().policy) + " plan";
    case pipeline::Stage::Generate: return "generating code";
    case pipeline::Stage::Compile: return "compiling the generated code";
    case pipeline::Stage::Export: return "writing the project";
    default: return "";
  }
}

}  // namespace

void runStages(pipeline::Pipeline& p, pipeline::Stage from, pipeline::Stage to, const Progress& progress) {
  // Progress lines: one per step, not one per rTask count ("Emulating on
  // the CPU (10 of 300 rTasks)..." repeats with new counts).
  std::string last;
  pipeline::Control control;
  control.progress = [&progress, &last](const std::string& what, int) {
    const std::string step = what.substr(0, what.find(" ("));
    if (step == last) return;
    last = step;
    progress.status(what);
  };
  const pipeline::Report report = p.run(from, to, control);
  if (report.ok()) return;
  const pipeline::Stage failed = report.failedStage.value_or(from);
  throwDiagnostics(report.errors(), contextOf(p, failed));
}

}  // namespace rammer::cli
