#pragma once
// The studio's document: one model and everything derived from it. Holds
// the settings the person chose as the pipeline's own Options (model,
// batch, policy, device, the policies' options, schedule Constraints, where
// to run) and the current results as the pipeline's Artifacts (imported and
// optimized graphs, pass log, Plan, predicted Trace, the run's record) with
// the diagnostics, and re-runs the pipeline from the first stage a change
// affects, always off the UI thread (PipelineJob). Views read the results (immutable snapshots held
// by shared_ptr, so a worker can keep using one) and listen to the signals.
//
// Rules the views and the editor can rely on:
//  - one job at a time; a newer request supersedes the running one and
//    still covers the stages the superseded one had not delivered
//    (changing the policy while a model loads loads it with that policy);
//  - cancel() frees the session at once; nothing of the cancelled job is
//    applied and the session stays usable;
//  - results are applied only on success of their stage: a failed open
//    keeps the previous model, a failed re-schedule keeps the previous plan
//    and puts the policy and device back to the plan's;
//  - setConstraints(c) re-runs policy -> validate -> simulate; if the policy
//    refuses the edit or the validator finds the plan unsafe, nothing is
//    applied, lastRejection() says why (with the rejected plan, so the rTasks
//    it breaks can be shown), and constraintsRejected(id) is emitted. Every
//    request ends in exactly one of constraintsApplied / constraintsRejected
//    / constraintsDropped (superseded by a newer edit, cancelled, or a new
//    model was opened).
// Qt Core only: the session and its models are tested without a display.
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/pipeline/pipeline.h"
#include "core/pipeline/plan_choices.h"
#include "core/runtime/cuda_probe.h"
#include "viz/models/studio_export.h"
#include "viz/models/side_job_report.h"
#include "viz/models/studio_pipeline.h"

namespace rammer::viz {

class DiagnosticsModel;
class LogModel;
class MetricsModel;
class PipelineJob;

// Why the last setConstraints request was not applied.
struct ConstraintsRejection {
  quint64 request = 0;
  schedule::Constraints constraints;            // what was asked
  std::vector<ir::Diagnostic> diagnostics;      // the policy's or validator's errors
  std::optional<schedule::ValidationReport> validation;  // when the validator refused it
  std::shared_ptr<const schedule::Plan> rejectedPlan;    // the unsafe plan, when one was built
};

class StudioSession : public QObject {
  Q_OBJECT

 public:
  explicit StudioSession(QObject* parent = nullptr);
  ~StudioSession() override;

  static QStringList policyNames();  // schedule::policyNames()
  static QStringList deviceIds();    // device::presetIds()
  static QString defaultPolicy();   // schedule::kDefaultPolicy's name
  static constexpr const char* kDefaultDevice = "h100";

  // --- settings
  // Of the loaded model; empty when none.
  QString modelPath() const { return QString::fromStdString(applied_.modelPath); }
  int64_t batch() const { return applied_.import.batch.value_or(1); }
  QString policy() const { return QString::fromStdString(schedule::policyName(requested_.policy)); }
  QString device() const { return QString::fromStdString(requested_.device); }
  // IOS's stage kinds (used when the policy is "ios").
  QString iosVariant() const { return QString::fromStdString(requested_.ios.variant); }
  // Every plan choice the CLI has, as the pipeline takes them: the policy,
  // device and batch of the settings above, and the policies' own options
  // (IOS r/s/variant/programs, GraphTurbo order/budget) and the attention
  // and epilogue fusion modes.
  pipeline::PlanChoices planChoices() const;
  const schedule::Constraints& constraints() const { return applied_.constraints; }
  // What "Compile & Run" may use; probed on the worker when never set.
  void setCapability(std::optional<runtime::CudaCapability> capability) {
    requested_.run.capability = std::move(capability);
  }
  const std::optional<runtime::CudaCapability>& capability() const { return requested_.run.capability; }
  // Where "Compile & Run" runs: the GPU else the emulator (Auto), the
  // emulator, or the generated code on the CPU (Host). For the next run.
  void setRunTarget(RunTarget target);
  RunTarget runTarget() const { return requested_.run.target; }
  // How the GPU and the generated code on the CPU launch a plan's programs:
  // one after the other on a stream, or captured once into a CUDA graph and
  // replayed (what torch.compile's reduce-overhead mode does). For the next run.
  void setLaunchMode(runtime::LaunchMode mode);
  runtime::LaunchMode launchMode() const { return requested_.run.gpu.run.launch; }
  // What the next job runs with (the settings above, as the pipeline takes
  // them; the edits of a pending setConstraints go in at submission).
  const pipeline::Options& options() const { return requested_; }

  // --- results (null until produced)
  // Every stage's value as the pipeline left it.
  const pipeline::Artifacts& artifacts() const { return artifacts_; }
  bool hasModel() const { return artifacts_.optimized != nullptr; }
  std::shared_ptr<const ir::Graph> originalGraph() const { return artifacts_.original; }
  // What the plan runs: the optimized graph, or the plan's own when its
  // policy merged operators (IOS), so views find every planned node.
  std::shared_ptr<const ir::Graph> graph() const { return artifacts_.planGraph(); }
  // The optimized graph every policy starts from (the Compare window plans it).
  std::shared_ptr<const ir::Graph> optimized() const { return artifacts_.optimized; }
  // The policy it was optimized for (epilogue fusion depends on it,
  // pipeline::EpilogueFusion::Auto).
  schedule::PolicyId optimizedFor() const { return optimizedFor_; }
  const std::vector<passes::PassRecord>& passLog() const { return artifacts_.passLog; }
  std::shared_ptr<const schedule::Plan> plan() const { return artifacts_.plan; }
  std::shared_ptr<const sim::Trace> predictedTrace() const { return artifacts_.predicted; }
  // The last run's (GPU, emulator, host) or an opened measured trace.
  std::shared_ptr<const sim::Trace> measuredTrace() const;
  RunBackend runBackend() const { return artifacts_.run ? artifacts_.run->backend : RunBackend::None; }
  QString runLabel() const;
  const std::vector<std::pair<std::string, double>>& runMetrics() const;
  const std::vector<ir::Diagnostic>& diagnostics() const;
  const std::optional<ConstraintsRejection>& lastRejection() const { return rejection_; }

  DiagnosticsModel* diagnosticsModel() const { return diagnostics_; }
  LogModel* log() const { return log_; }
  MetricsModel* metricsModel() const { return metrics_; }

  bool isBusy() const;
  QString busyWhat() const;

  // --- requests; each returns the job's id (0 when nothing was started)
  // Imports (binding symbolic batch dims to `batch`), optimizes, schedules,
  // validates and simulates with the current policy and device.
  quint64 openModel(const QString& path, int64_t batch = 1);
  quint64 setPolicy(const QString& policy);
  quint64 setDevice(const QString& device);
  // Re-plans only when the policy is "ios" (else it applies to a later IOS plan).
  quint64 setIosVariant(const QString& variant);
  // Takes the policies' options and the fusion modes of `choices` (its
  // policy, device, batch and edits have their own setters). Re-optimizes
  // when the fusion decisions change, re-plans when the current policy's
  // options do, and otherwise keeps them for a later plan.
  quint64 setPolicyOptions(const pipeline::PlanChoices& choices);
  // Returns the constraints request id (see the rules above).
  quint64 setConstraints(const schedule::Constraints& constraints);
  quint64 reschedule();  // the same settings again (F5)
  // Compile & Run on the run target: CUDA on the GPU when there is one,
  // else the CPU emulator (labelled "emulated: CPU (no GPU)"), or the
  // generated code on the CPU ("generated code on CPU"); outputs are
  // checked against the reference executor.
  quint64 compileAndRun();
  // Compiles the plan's CUDA with NVRTC for the device, no GPU needed
  // (the pipeline's Generate and Compile stages): the plan's rKernels then carry the registers
  // ptxas gave them, the Log lists each program's registers, spills and
  // blocks per SM, and a program the device cannot hold is a diagnostic.
  quint64 compileWithNvrtc();
  // Opens a measured trace of this model (the lease recorder's, e.g. the
  // H100 traces committed in tests/data/gpu_traces; xz or JSON) as the
  // measured trace beside the plan's prediction, its operators matched to
  // the plan's by name (sim::alignToPlan). No GPU needed: a student sees
  // what a GPU did with a plan next to what the model predicts.
  // measuredOpened says how it went.
  quint64 openMeasuredTrace(const QString& path);
  // Writes `path` (a folder for projects). Refused (0) while busy or when
  // what it needs does not exist yet; exportFinished says how it went.
  quint64 exportTo(ExportKind kind, const QString& path);
  void cancel();

  // Blocks until every worker thread has returned, superseded ones included
  // (tests; shutdown). Queued results still need the event loop.
  void waitForWorkers();

 signals:
  void modelLoaded(const QString& path);
  void loadFailed(const QString& message);
  void planChanged();
  void traceChanged();          // the predicted trace
  void measuredTraceChanged();  // run result (or cleared by a new plan)
  void diagnosticsChanged();
  void settingsChanged();       // policy, device or constraints changed or were put back
  void busyChanged(bool busy);
  void progress(const QString& what, int percent);
  void cancelled();
  void constraintsApplied(quint64 request);
  void constraintsRejected(quint64 request);
  void constraintsDropped(quint64 request);
  void runFinished(bool ok);
  void nvrtcCompiled(bool ok);
  void measuredOpened(bool ok);
  void exportFinished(bool ok, const QString& message);
  // Every job that was not cancelled or superseded ends with this.
  void jobFinished(quint64 job, bool ok);

 private:
  struct PendingConstraints {
    quint64 request = 0;
    schedule::Constraints constraints;
  };
  struct Running {
    PipelineStage from = PipelineStage::Import;
    PipelineStage to = PipelineStage::Simulate;
    bool pipeline = true;  // false: a side job (startSideJob)
    QString what;
  };

  quint64 submit(PipelineStage from, PipelineStage to);
  void apply(PipelineResult& result);
  void applyModel(PipelineResult& r);
  void applyPlan(PipelineResult& r);
  void rejectConstraints(PipelineResult& r);
  void setDiagnostics(std::vector<ir::Diagnostic> diagnostics);
  // Starts a side job its file described (side_job_report.h), or logs why
  // not; `done` emits its signal with the report (a refusal's: not ok, the
  // reason as its message). 0 when refused.
  quint64 startSideJob(SideJob job, std::function<void(const SideJobReport&)> done);
  // A side job's result: its log lines, diagnostics, plan or run; ends the job.
  void applyReport(SideJobReport& report);
  void setRun(std::shared_ptr<const pipeline::RunRecord> run);
  void revertSettings();
  void dropPendingConstraints(const QString& why);
  void clearMeasured();
  void jobEnded(quint64 job, const QString& error);
  void jobCancelled();
  bool loading() const;
  QString describe(PipelineStage from, PipelineStage to) const;
  void logResult(const PipelineResult& r);

  PipelineJob* job_ = nullptr;
  DiagnosticsModel* diagnostics_ = nullptr;
  LogModel* log_ = nullptr;
  MetricsModel* metrics_ = nullptr;

  // Requested: what the next job uses.
  pipeline::Options requested_;
  std::optional<PendingConstraints> pendingConstraints_;
  quint64 nextConstraintsRequest_ = 0;

  // Applied: what the views show, and what made it: the model path, batch
  // and edits of the loaded model, the policy, device and policy options of
  // its plan (a device file stays a file, not the id inside it).
  pipeline::Options applied_;
  pipeline::Artifacts artifacts_;
  schedule::PolicyId optimizedFor_ = schedule::kDefaultPolicy;
  std::optional<ConstraintsRejection> rejection_;

  std::optional<Running> running_;
  bool lastJobOk_ = false;  // of the job whose result was applied last
};

}  // namespace rammer::viz
