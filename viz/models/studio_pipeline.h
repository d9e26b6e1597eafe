#pragma once
// The studio's face of core/pipeline: a request names the stages to run and
// carries the outputs of the earlier ones (the session's current state); the
// result carries every stage's value. runPipeline only converts: the core
// pipeline runs the stages, exactly as it does for the CLI. It runs on any
// thread.
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/passes/pass_manager.h"
#include "core/pipeline/pipeline.h"
#include "core/pipeline/plan_choices.h"
#include "core/runtime/cuda_probe.h"
#include "core/schedule/constraints.h"
#include "core/schedule/plan.h"
#include "core/schedule/validator.h"
#include "core/sim/cost_model.h"
#include "core/sim/trace.h"

namespace rammer::viz {

using PipelineStage = pipeline::Stage;
// "import", "optimize", ...: the words the log and the diagnostics use.
QString stageLabel(PipelineStage stage);

// A diagnostic with the stage that raised it (the Diagnostics dock's rows).
struct StudioDiagnostic {
  PipelineStage stage = PipelineStage::Import;
  ir::Diagnostic diagnostic;
};

// What a long stage sees of the job it runs in.
struct JobControl {
  const std::atomic<bool>* cancel = nullptr;
  // `percent` of the whole job; called on the worker thread.
  std::function<void(const QString& what, int percent)> progress;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  void report(const QString& what, int percent) const {
    if (progress) progress(what, percent);
  }
};

// Where "Compile & Run" runs a plan (core/pipeline/run_stage.h).
using pipeline::RunTarget;
using pipeline::RunBackend;
using pipeline::kEmulatedLabel;
using pipeline::kEmulatedNoGpuLabel;
using pipeline::kHostCodeLabel;

struct PipelineRequest {
  PipelineStage from = PipelineStage::Import;
  PipelineStage to = PipelineStage::Simulate;  // inclusive

  std::string modelPath;
  // Policy, device, batch, edits, fusion modes, IOS and GraphTurbo options:
  // the same choices, translated the same way, as the CLI's.
  pipeline::PlanChoices plan;

  // Outputs of the stages before `from` (the session's current state).
  std::shared_ptr<const ir::Graph> original;   // as imported: the numeric reference
  std::shared_ptr<const ir::Graph> optimized;  // what is scheduled
  std::shared_ptr<const ir::Graph> optimizedFused;  // with attention fused, when it can be
  std::vector<passes::PassRecord> passLog;
  std::shared_ptr<const schedule::Plan> planned;  // for a request from Run

  // Run: what the machine can do; probed when absent.
  std::optional<runtime::CudaCapability> capability;
  // Run: where the driver and NVRTC are looked for (tests point them at a
  // stand-in driver).
  runtime::ProbeOptions libraries;
  // Run on a GPU: also profile with CUPTI (where the profiler is built);
  // parts CUPTI cannot do are estimated and labelled so.
  bool profile = true;
  // Run: also compute the reference outputs and compare (max |diff| / rtol).
  bool checkOutputs = true;
  uint64_t inputSeed = 0;
  // Run: where (see RunTarget).
  RunTarget runTarget = RunTarget::Auto;
};

struct PipelineResult {
  PipelineRequest request;  // what was asked (its inputs included)
  bool cancelled = false;
  std::optional<PipelineStage> failedStage;
  // The last stage that completed; nullopt when none did.
  std::optional<PipelineStage> lastDone;
  // Errors of the failed stage, plus warnings and notes of the others.
  std::vector<StudioDiagnostic> diagnostics;
  std::vector<std::string> log;  // one line per stage: what it did, how long

  std::shared_ptr<const ir::Graph> original;
  std::shared_ptr<const ir::Graph> optimized;
  std::shared_ptr<const ir::Graph> optimizedFused;
  std::vector<passes::PassRecord> passLog;
  // Set by Schedule even when validation then fails (so an editor can show
  // the rTasks an edit breaks); `validation` holds the validator's report.
  std::shared_ptr<const schedule::Plan> plan;
  std::optional<schedule::ValidationReport> validation;
  std::shared_ptr<const sim::Trace> predicted;

  RunBackend backend = RunBackend::None;
  std::shared_ptr<const sim::Trace> measured;  // measured (GPU) or emulated (CPU)
  std::string runLabel;                        // "emulated: CPU (no GPU)", "measured: NVIDIA H100 ..."
  std::vector<std::pair<std::string, double>> runMetrics;  // latency, CUPTI, output check

  bool ok() const { return !cancelled && !failedStage; }
  // Whether `stage` ran to completion in this job.
  bool done(PipelineStage stage) const;
};

PipelineResult runPipeline(PipelineRequest request, const JobControl& control);

// The model the studio plans and predicts with: the analytic cost model, as
// `rammer schedule` uses without --profile-db, so both show the same plan.
std::shared_ptr<const sim::CostModel> studioCostModel();

}  // namespace rammer::viz
