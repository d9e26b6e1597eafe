#pragma once
// The studio's face of core/pipeline: a request is the stages to run, the
// pipeline's own Options (the session's settings) and its Artifacts (the
// values of the stages before `from`: the session's current state); the
// result is the pipeline's Report and Artifacts. runPipeline only hands the
// request to pipeline::runStages, exactly as the CLI does. It runs on any
// thread.
#include <QString>
#include <memory>
#include <string>

#include "core/ir/diagnostic.h"
#include "core/pipeline/pipeline.h"
#include "core/pipeline/plan_choices.h"
#include "core/sim/cost_model.h"

namespace rammer::viz {

using PipelineStage = pipeline::Stage;
// "import", "optimize", ...: the words the log and the diagnostics use.
QString stageLabel(PipelineStage stage);
// The stage a diagnostic names (ir::Diagnostic::stage); `otherwise` when it
// names none.
PipelineStage stageOf(const ir::Diagnostic& d, PipelineStage otherwise = PipelineStage::Import);

// Where "Compile & Run" runs a plan (core/pipeline/run_stage.h).
using pipeline::RunTarget;
using pipeline::RunBackend;
using pipeline::kEmulatedLabel;
using pipeline::kEmulatedNoGpuLabel;
using pipeline::kHostCodeLabel;

struct PipelineRequest {
  PipelineStage from = PipelineStage::Import;
  PipelineStage to = PipelineStage::Simulate;  // inclusive (pipeline::stagesBetween)
  pipeline::Options options;
  pipeline::Artifacts given;  // the values of the stages before `from`
};

struct PipelineResult {
  PipelineRequest request;  // what was asked; its `given` moved into `artifacts`
  pipeline::Report report;
  pipeline::Artifacts artifacts;

  bool ok() const { return report.ok(); }
  // Whether `stage` ran to completion in this job.
  bool done(PipelineStage stage) const { return report.done(stage); }
};

// The studio's options for planning `modelPath` as `choices` say: the CLI's
// translation (pipeline::optionsFor), the studio's cost model, and a GPU
// run profiled with CUPTI where the profiler is built (parts CUPTI cannot
// do are estimated and labelled so; a failed profile is a warning).
pipeline::Options studioOptions(const std::string& modelPath, const pipeline::PlanChoices& choices);

PipelineResult runPipeline(PipelineRequest request, const pipeline::Control& control);

// The model the studio plans and predicts with: the analytic cost model, as
// `rammer schedule` uses without --profile-db, so both show the same plan.
std::shared_ptr<const sim::CostModel> studioCostModel();

}  // namespace rammer::viz
