#pragma once
// The one pipeline every driver calls (the CLI, the studio, the tests):
// import -> optimize -> schedule -> validate -> simulate, then run, or
// generate -> export (stage.h), each stage a pure function of the earlier
// stages' values and explicit options.
//
// A stage's value is kept in Artifacts; a stage that fails leaves its value
// empty and says why in diagnostics (each tagged with the stage), never by
// throwing. After an edit (new constraints, another policy) a driver re-runs
// "from stage X on": the earlier values are reused, the later ones are
// recomputed.
//
// Long work is cancellable: the flag is checked between stages and handed
// to the stages that poll one (the policies, the emulator, the host run,
// the reference executor). Import and the passes do not poll, so a cancel
// lands when they end.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/codegen/project_export.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/onnx/importer.h"
#include "core/passes/pass_manager.h"
#include "core/pipeline/compile_stage.h"
#include "core/pipeline/launch_choice.h"
#include "core/pipeline/resident_choice.h"
#include "core/pipeline/export_stage.h"
#include "core/pipeline/run_stage.h"
#include "core/pipeline/stage.h"
#include "core/schedule/constraints.h"
#include "core/schedule/plan.h"
#include "core/schedule/policy.h"
#include "core/schedule/validator.h"
#include "core/sim/cost_model.h"
#include "core/sim/trace.h"

namespace rammer::pipeline {

// What a long job sees of whoever started it.
struct Control {
  const std::atomic<bool>* cancel = nullptr;
  // `what` is happening, `percent` of the whole request; called on the
  // thread that runs the pipeline.
  std::function<void(const std::string& what, int percent)> progress;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  void report(const std::string& what, int percent) const {
    if (progress) progress(what, percent);
  }
};

// Whether scaled dot-product attention runs as one flash-attention
// rOperator (com.rammer::Attention) or as its MatMul/Softmax operators.
// Auto schedules the model both ways with the chosen policy and keeps the
// plan the cost model predicts faster: the fused rKernels' registers and
// shared memory leave fewer vEUs per SM, which pays off only in some plans
// (docs/PERFORMANCE.md, "Fused attention").
enum class AttentionFusion { Auto, Fused, Unfused };

// Whether element-wise nodes move into the epilogue of the Conv, Gemm or
// MatMul they read (passes::EpilogueFusion). Auto fuses under the policies
// that schedule the operators as they are (sequential, wavefront, greedy)
// and not under IOS and GraphTurbo, whose operator merges and fused groups
// take plain Convs. Split-K variants keep the fused layers as many rTasks
// as the plain ones (their last chunk applies the epilogue), so a fused
// plan has fewer operators, barriers and bytes for the same rTasks.
enum class EpilogueFusion { Auto, Fused, Unfused };
bool fusesEpilogues(EpilogueFusion mode, schedule::PolicyId policy);

// What Auto chose: both plans' predicted latencies.
struct AttentionDecision {
  double unfusedUs = 0, fusedUs = 0;
  bool fused = false;
};

// What fitting the plan's registers did (register_fit.h).
struct RegisterFitRecord {
  int replans = 0;
  size_t cuts = 0, raised = 0;  // program cuts added, rKernels given more registers
  int64_t spillBytes = 0;       // what the last compile still spilled
};

struct Options {
  std::string modelPath;
  // Import: symbolic batch dims are bound to `import.batch` (1 when unset).
  onnx_import::ImportOptions import;
  schedule::PolicyId policy = schedule::kDefaultPolicy;
  schedule::IosOptions ios;  // --policy ios: r, s, variant
  schedule::GraphTurboOptions graphturbo;  // --policy graphturbo: order, budget
  std::string device = "h100";  // preset id or device JSON path
  schedule::Constraints constraints;
  AttentionFusion attention = AttentionFusion::Auto;  // what the Optimize and Schedule stages do with attention
  // Optimize: element-wise nodes into the epilogue of the GEMM / Conv they
  // read (passes::PassOptions::fuseEpilogues).
  EpilogueFusion epilogues = EpilogueFusion::Auto;
  // Optimize: each RNN step's recurrent MatMul into its cell
  // (passes::PassOptions::fuseRecurrentCells). Off to rebuild the plans of
  // a build from before that fusion (`rammer calibrate` on an older lease).
  bool fuseRecurrentCells = true;
  // Schedule edits (docs/SCHEDULE_EDITS.md) read by the Schedule stage
  // against the optimized graph; when set they replace `constraints`.
  std::string scheduleEditsFile;
  // The rTask times the policy plans with and the simulator predicts with;
  // null: the analytic cost model.
  std::shared_ptr<const sim::CostModel> costModel;
  RunOptions run;
  // Generate: the target (CUDA, HIP, host) and whether rTasks record their
  // times.
  codegen::CodegenOptions generate;
  // Compile: where NVRTC is, the architecture, the host compiler.
  CompileOptions compile;
  // Schedule: compile the plan's CUDA with NVRTC and plan again while it
  // spills (register_fit.h), so the plan that is compiled, run or exported
  // for a GPU spills nothing. Off, the Schedule stage compiles nothing.
  bool fitRegisters = false;
  // Schedule: keep a persistent program only where the cost model predicts
  // it no slower than its operators as launches (launch_choice.h).
  bool launchFallback = true;
  // Schedule: let recurrent cells keep their weights in shared memory
  // where the cost model predicts the plan faster (resident_choice.h).
  bool residentCells = true;
  // Export: where the project goes and what it checks with.
  ProjectOptions project;
};

// Each stage's value; empty until the stage has run.
struct Artifacts {
  std::shared_ptr<const ir::Graph> original;   // Import: the numeric reference
  std::shared_ptr<const ir::Graph> optimized;  // Optimize: what is scheduled
  std::vector<passes::PassRecord> passLog;
  // Optimize, AttentionFusion::Auto: the optimized graph with attention
  // fused, when the model has any; the Schedule stage plans both.
  std::shared_ptr<const ir::Graph> optimizedFused;
  // Schedule (set even when validation then fails, so an editor can show
  // the rTasks an edit breaks).
  std::shared_ptr<const schedule::Plan> plan;
  double scheduleSeconds = 0;
  std::optional<AttentionDecision> attention;  // Schedule, when it planned both ways
  std::optional<RegisterFitRecord> registerFit;  // Schedule, with Options::fitRegisters and NVRTC
  std::optional<LaunchChoice> launches;  // Schedule, when programs were planned as launches
  std::optional<ResidentChoice> residentCells;  // Schedule, when the policy kept cells' weights on chip
  std::optional<schedule::ValidationReport> validation;  // Validate
  std::shared_ptr<const sim::Trace> predicted;           // Simulate
  std::shared_ptr<const RunRecord> run;                  // Run
  std::shared_ptr<const codegen::GeneratedProgram> generated;  // Generate
  std::shared_ptr<const CompiledCode> compiled;                // Compile
  std::shared_ptr<const codegen::ExportSummary> exported;      // Export

  // The graph the plan runs: the optimized graph, or the plan's own when
  // its policy rewrote it (IOS's operator merge) or attention was fused.
  std::shared_ptr<const ir::Graph> planGraph() const { return plan && plan->graph ? plan->graph : optimized; }

  // Drops the values of `stage` and of every stage that reads it.
  void resetFrom(Stage stage);
};

// What one call did.
struct Report {
  Stage from = Stage::Import;
  Stage to = Stage::Simulate;
  bool cancelled = false;
  std::optional<Stage> failedStage;
  std::optional<Stage> lastDone;  // the last stage that completed in this call
  // Errors of the failed stage, plus warnings and notes of the others; each
  // has `stage` set.
  std::vector<ir::Diagnostic> diagnostics;
  std::vector<std::string> log;  // one line per stage: what it did, how long

  bool ok() const { return !cancelled && !failedStage; }
  // Whether `stage` ran to completion in this call.
  bool done(Stage stage) const;
  std::vector<ir::Diagnostic> errors() const;
};

struct StagesResult {
  Artifacts artifacts;
  Report report;
};

// Runs stages `from`..`to` (inclusive: stagesBetween) with `given` holding
// the values of the stages before `from`. A pure function: it runs on any
// thread.
StagesResult runStages(const Options& options, Artifacts given, Stage from, Stage to, const Control& control = {});

// The stateful face of runStages for drivers that keep the values between
// calls (the CLI runs it once; tests edit and re-run).
class Pipeline {
 public:
  explicit Pipeline(Options options) : options_(std::move(options)) {}

  Options& options() { return options_; }
  const Options& options() const { return options_; }
  // Values may be given before a run that starts after their stage.
  Artifacts& artifacts() { return artifacts_; }
  const Artifacts& artifacts() const { return artifacts_; }

  // Runs `from`..`to`; the values of the stages before `from` come from
  // earlier calls. A stage that fails drops its value and the later ones.
  Report run(Stage from, Stage to, const Control& control = {});

 private:
  Options options_;
  Artifacts artifacts_;
};

// The analytic cost model, shared: what `rammer schedule` predicts with
// without --profile-db and what the studio plans with.
std::shared_ptr<const sim::CostModel> defaultCostModel();

}  // namespace rammer::pipeline
