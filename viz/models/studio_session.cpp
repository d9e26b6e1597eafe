#include "viz/models/studio_session.h"

#include <QFileInfo>
#include <algorithm>

#include "core/device/device_spec.h"
#include "core/pipeline/pipeline.h"
#include "core/runtime/offline_compile.h"
#include "core/sim/measured_trace.h"
#include "core/schedule/policy.h"
#include "viz/models/diagnostics_model.h"
#include "viz/models/log_model.h"
#include "viz/models/metrics_model.h"
#include "viz/models/release_later.h"
#include "viz/models/pipeline_job.h"
#include "viz/models/studio_export.h"

namespace rammer::viz {

namespace {

QStringList toQStringList(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

QString firstError(const std::vector<StudioDiagnostic>& ds) {
  for (const auto& d : ds)
    if (d.diagnostic.severity == ir::Severity::Error) return QString::fromStdString(ir::formatDiagnostic(d.diagnostic));
  return ds.empty() ? QStringLiteral("unknown error") : QString::fromStdString(ir::formatDiagnostic(ds.front().diagnostic));
}

// What an export job hands back.
struct ExportOutcome {
  std::vector<ir::Diagnostic> errors;
  QString message;  // what was written
};

struct MeasuredOutcome {
  std::vector<ir::Diagnostic> errors;
  std::shared_ptr<const sim::Trace> trace;  // aligned to the plan
  size_t dropped = 0;                        // rTasks of ops the plan lacks
};

struct NvrtcOutcome {
  std::vector<ir::Diagnostic> errors;
  std::shared_ptr<const schedule::Plan> plan;  // the plan with the compiled registers
  runtime::OfflineCompile result;
};

}  // namespace

StudioSession::StudioSession(QObject* parent)
    : QObject(parent),
      job_(new PipelineJob(this)),
      diagnostics_(new DiagnosticsModel(this)),
      log_(new LogModel(this)),
      metrics_(new MetricsModel(this)) {
  connect(job_, &PipelineJob::busyChanged, this, &StudioSession::busyChanged);
  connect(job_, &PipelineJob::progress, this,
          [this](quint64, const QString& what, int percent) { emit progress(what, percent); });
  connect(job_, &PipelineJob::finished, this, &StudioSession::jobEnded);
  connect(job_, &PipelineJob::cancelled, this, [this](quint64) { jobCancelled(); });
}

StudioSession::~StudioSession() {
  // The job's destructor waits for its workers; do it before the models go.
  delete job_;
  job_ = nullptr;
}

QStringList StudioSession::policyNames() { return toQStringList(schedule::policyNames()); }
QStringList StudioSession::deviceIds() { return toQStringList(device::presetIds()); }
QStringList StudioSession::iosVariants() {
  return {QStringLiteral("parallel"), QStringLiteral("merge"), QStringLiteral("both")};
}

const std::vector<StudioDiagnostic>& StudioSession::diagnostics() const { return diagnostics_->diagnostics(); }

bool StudioSession::isBusy() const { return job_ && job_->isBusy(); }
QString StudioSession::busyWhat() const { return job_ ? job_->currentWhat() : QString(); }
void StudioSession::waitForWorkers() { job_->waitForWorkers(); }

bool StudioSession::loading() const {
  return isBusy() && running_ && running_->pipeline && running_->from == PipelineStage::Import;
}

quint64 StudioSession::openModel(const QString& path, int64_t batch) {
  dropPendingConstraints(QStringLiteral("a new model was opened"));
  requestedPath_ = path;
  requestedBatch_ = batch > 0 ? batch : 1;
  log_->info(tr("Opening %1 (batch %2)").arg(path).arg(requestedBatch_));
  return submit(PipelineStage::Import, PipelineStage::Simulate);
}

quint64 StudioSession::setPolicy(const QString& policy) {
  const std::string p = policy.trimmed().toStdString();
  if (p == policy_) return 0;
  // Under the Auto epilogue fusion mode IOS and GraphTurbo take the graph
  // without epilogue fusion, the others with it (pipeline::fusesEpilogues):
  // a switch across that line optimizes the model again, a new graph with a
  // new plan.
  const bool reoptimize =
      pipeline::fusesEpilogues(options_.epilogues, p) != pipeline::fusesEpilogues(options_.epilogues, policy_);
  policy_ = p;
  emit settingsChanged();
  if (!hasModel() && !loading()) return 0;
  return submit(reoptimize ? PipelineStage::Optimize : PipelineStage::Schedule, PipelineStage::Simulate);
}

void StudioSession::setRunTarget(RunTarget target) {
  if (target == runTarget_) return;
  runTarget_ = target;
  emit settingsChanged();
}

quint64 StudioSession::setIosVariant(const QString& variant) {
  pipeline::PlanChoices c = options_;
  c.ios.variant = variant.trimmed().toStdString();
  return setPolicyOptions(c);
}

pipeline::PlanChoices StudioSession::planChoices() const {
  pipeline::PlanChoices c;
  pipeline::copyPolicyOptions(c, options_);
  c.policy = policy_;
  c.device = device_;
  c.batch = batch_;
  c.constraints = constraints_;
  return c;
}

quint64 StudioSession::setPolicyOptions(const pipeline::PlanChoices& c) {
  const bool fusion = c.attention != options_.attention || pipeline::fusesEpilogues(c.epilogues, policy_) !=
                                                              pipeline::fusesEpilogues(options_.epilogues, policy_);
  const bool ownOptions = (policy_ == "ios" && c.ios != options_.ios) ||
                          (policy_ == "graphturbo" && c.graphturbo != options_.graphturbo);
  if (pipeline::samePolicyOptions(c, options_)) return 0;
  pipeline::copyPolicyOptions(options_, c);
  emit settingsChanged();
  if ((!fusion && !ownOptions) || (!hasModel() && !loading())) return 0;
  return submit(fusion ? PipelineStage::Optimize : PipelineStage::Schedule, PipelineStage::Simulate);
}

quint64 StudioSession::setDevice(const QString& device) {
  const std::string d = device.trimmed().toStdString();
  if (d == device_) return 0;
  device_ = d;
  emit settingsChanged();
  if (!hasModel() && !loading()) return 0;
  return submit(PipelineStage::Schedule, PipelineStage::Simulate);
}

quint64 StudioSession::setConstraints(const schedule::Constraints& constraints) {
  dropPendingConstraints(QStringLiteral("a newer edit replaced it"));
  const quint64 request = ++nextConstraintsRequest_;
  pendingConstraints_ = PendingConstraints{request, constraints};
  if (!hasModel() && !loading()) {
    ConstraintsRejection rejection;
    rejection.request = request;
    rejection.constraints = constraints;
    rejection.diagnostics.push_back({PipelineStage::Schedule, ir::makeError("no model is loaded")});
    rejection_ = std::move(rejection);
    pendingConstraints_.reset();
    emit constraintsRejected(request);
    return request;
  }
  submit(PipelineStage::Schedule, PipelineStage::Simulate);
  return request;
}

quint64 StudioSession::reschedule() {
  if (!hasModel() && !loading()) return 0;
  return submit(PipelineStage::Schedule, PipelineStage::Simulate);
}

quint64 StudioSession::compileAndRun() {
  if (!hasModel() && !loading()) {
    log_->warning(tr("Compile & Run: open a model first"));
    return 0;
  }
  // Without a plan (its scheduling failed) the run re-plans first.
  return submit(plan_ ? PipelineStage::Run : PipelineStage::Schedule, PipelineStage::Run);
}

quint64 StudioSession::compileWithNvrtc() {
  auto refuse = [this](const QString& why) -> quint64 {
    log_->warning(tr("Compile with NVRTC: %1").arg(why));
    emit nvrtcCompiled(false);
    return 0;
  };
  if (isBusy()) return refuse(tr("busy with '%1'; wait for it or cancel it").arg(busyWhat()));
  if (!plan_) return refuse(tr("there is no valid plan to compile"));
  auto plan = plan_;
  auto graph = this->graph();
  std::function<NvrtcOutcome(const JobControl&)> work = [plan, graph](const JobControl&) {
    NvrtcOutcome out;
    auto nvrtc = runtime::NvrtcCompiler::load();
    if (!nvrtc) {
      out.errors = nvrtc.errors();
      return out;
    }
    auto compiled = std::make_shared<schedule::Plan>(*plan);
    auto result = runtime::compileOffline(*compiled, *graph, **nvrtc);
    if (!result) {
      out.errors = result.errors();
      return out;
    }
    out.plan = std::move(compiled);
    out.result = std::move(result).value();
    return out;
  };
  const QString what = tr("Compiling with NVRTC");
  running_ = Running{PipelineStage::Run, PipelineStage::Run, false, what};
  return job_->start<NvrtcOutcome>(what, std::move(work), [this, plan](NvrtcOutcome& out) {
    running_.reset();
    lastJobOk_ = out.errors.empty();
    if (!out.errors.empty()) {
      std::vector<StudioDiagnostic> ds;
      for (auto& e : out.errors) ds.push_back({PipelineStage::Run, std::move(e)});
      log_->error(tr("Compile with NVRTC failed: %1").arg(firstError(ds)));
      setDiagnostics(std::move(ds));
      emit nvrtcCompiled(false);
      return;
    }
    if (plan_ != plan) {
      log_->info(tr("Compile with NVRTC: the plan changed meanwhile; its counts are dropped"));
      emit nvrtcCompiled(false);
      return;
    }
    log_->info(tr("NVRTC %1 for %2: what ptxas gave each program")
                   .arg(QString::fromStdString(out.result.nvrtcVersion), QString::fromStdString(out.result.arch)));
    for (const runtime::ProgramResources& r : out.result.programs) log_->info(QString::fromStdString(r.summary));
    plan_ = std::move(out.plan);  // the same plan; its rKernels carry the compiled registers
    emit planChanged();
    emit nvrtcCompiled(true);
  });
}

quint64 StudioSession::openMeasuredTrace(const QString& path) {
  auto refuse = [this](const QString& why) -> quint64 {
    log_->warning(tr("Open measured trace: %1").arg(why));
    emit measuredOpened(false);
    return 0;
  };
  if (isBusy()) return refuse(tr("busy with '%1'; wait for it or cancel it").arg(busyWhat()));
  if (!plan_) return refuse(tr("open a model first: a measured trace lies beside its plan"));
  auto plan = plan_;
  const std::string file = path.toStdString();
  std::function<MeasuredOutcome(const JobControl&)> work = [plan, file](const JobControl&) {
    MeasuredOutcome out;
    auto t = sim::loadMeasuredTrace(file);
    if (!t) {
      out.errors = t.errors();
      return out;
    }
    out.trace = std::make_shared<const sim::Trace>(sim::alignToPlan(std::move(t).value(), *plan, &out.dropped));
    return out;
  };
  const QString name = QFileInfo(path).fileName();
  const QString what = tr("Opening %1").arg(name);
  running_ = Running{PipelineStage::Run, PipelineStage::Run, false, what};
  return job_->start<MeasuredOutcome>(what, std::move(work), [this, plan, name](MeasuredOutcome& out) {
    running_.reset();
    lastJobOk_ = out.errors.empty();
    if (!out.errors.empty()) {
      log_->error(tr("Open measured trace %1: %2").arg(name, QString::fromStdString(out.errors.front().message)));
      emit measuredOpened(false);
      return;
    }
    if (plan_ != plan) {
      lastJobOk_ = false;
      log_->info(tr("Open measured trace: the plan changed meanwhile; open it again"));
      emit measuredOpened(false);
      return;
    }
    if (out.trace->tasks.empty()) {
      lastJobOk_ = false;
      log_->error(tr("Open measured trace: none of %1's operators is in this plan (another model?)").arg(name));
      emit measuredOpened(false);
      return;
    }
    if (out.dropped > 0)
      log_->warning(tr("%1: %2 rTasks of operators this plan lacks were left out").arg(name).arg(out.dropped));
    measured_ = std::move(out.trace);
    backend_ = RunBackend::None;
    runLabel_ = tr("%1 (%2)").arg(QString::fromStdString(measured_->source), name);
    runMetrics_.clear();
    metrics_->setMeasured(measured_, runLabel_, runMetrics_);
    log_->info(
        tr("Measured trace %1: %2 us, beside the plan's prediction").arg(name).arg(measured_->totalUs, 0, 'f', 1));
    emit measuredTraceChanged();
    emit measuredOpened(true);
  });
}

void StudioSession::cancel() { job_->cancel(); }

QString StudioSession::describe(PipelineStage from, PipelineStage to) const {
  if (from == PipelineStage::Import) return tr("Loading %1").arg(QFileInfo(requestedPath_).fileName());
  if (from == PipelineStage::Run || to == PipelineStage::Run) return tr("Compile & Run");
  return tr("Scheduling (%1 on %2)").arg(policy(), device());
}

quint64 StudioSession::submit(PipelineStage from, PipelineStage to) {
  // A newer request must still deliver what the one it supersedes had not.
  if (isBusy() && running_ && running_->pipeline && from != PipelineStage::Import) {
    from = std::min(from, running_->from);
    to = std::max(to, running_->to);
  }
  if (isBusy() && running_) log_->info(tr("%1: superseded by a newer request").arg(running_->what));

  PipelineRequest q;
  q.from = from;
  q.to = to;
  q.modelPath = requestedPath_.toStdString();
  q.plan.batch = requestedBatch_;
  q.plan.policy = policy_;
  q.plan.device = device_;
  pipeline::copyPolicyOptions(q.plan, options_);
  if (pendingConstraints_)
    q.plan.constraints = pendingConstraints_->constraints;
  else if (from != PipelineStage::Import)
    q.plan.constraints = constraints_;  // a new model starts without edits
  if (from > PipelineStage::Import) q.original = original_;
  if (from > PipelineStage::Optimize) {
    q.optimized = optimized_;
    q.optimizedFused = optimizedFused_;
    q.passLog = passLog_;
  }
  if (from > PipelineStage::Simulate) q.planned = plan_;
  q.capability = capability_;
  q.runTarget = runTarget_;

  const QString what = describe(from, to);
  running_ = Running{from, to, true, what};
  return job_->start<PipelineResult>(
      what, [q](const JobControl& control) { return runPipeline(q, control); },
      [this](PipelineResult& r) { apply(r); });
}

void StudioSession::apply(PipelineResult& r) {
  running_.reset();
  lastJobOk_ = r.ok();
  logResult(r);
  const PipelineRequest& q = r.request;
  const bool load = q.from == PipelineStage::Import;

  if (load) {
    if (!r.done(PipelineStage::Optimize)) {
      // A failed open keeps the model that was there.
      requestedPath_ = path_;
      requestedBatch_ = batch_;
      setDiagnostics(std::move(r.diagnostics));
      dropPendingConstraints(QStringLiteral("the model did not load"));
      emit loadFailed(firstError(diagnostics()));
      return;
    }
    applyModel(r);
  } else if (q.from == PipelineStage::Optimize && r.done(PipelineStage::Validate)) {
    // Optimized again for another policy (epilogue fusion follows it): the
    // plan applied below is on the new graph, and the views take that graph
    // with the plan (as an IOS merge's). Edits and the undo stack stay.
    replaceLater(optimized_, r.optimized);
    replaceLater(optimizedFused_, r.optimizedFused);
    passLog_ = r.passLog;
    optimizedFor_ = r.request.plan.policy;
  }

  const bool scheduled = q.from <= PipelineStage::Schedule && q.to >= PipelineStage::Simulate;
  if (scheduled) {
    if (r.done(PipelineStage::Validate)) {
      applyPlan(r);
    } else if (pendingConstraints_) {
      rejectConstraints(r);
      if (load) applyPlan(r);  // nothing valid to show for the new model
      else revertSettings();
    } else if (load) {
      applyPlan(r);  // clears the previous model's plan
    } else {
      revertSettings();
    }
  }

  if (q.to == PipelineStage::Run) {
    if (r.done(PipelineStage::Run)) {
      measured_ = r.measured;
      backend_ = r.backend;
      runLabel_ = QString::fromStdString(r.runLabel);
      runMetrics_ = r.runMetrics;
      metrics_->setMeasured(measured_, runLabel_, runMetrics_);
      emit measuredTraceChanged();
      emit runFinished(true);
    } else {
      emit runFinished(false);
    }
  }
  setDiagnostics(std::move(r.diagnostics));
}

void StudioSession::applyModel(PipelineResult& r) {
  path_ = QString::fromStdString(r.request.modelPath);
  batch_ = r.request.plan.batch;
  requestedPath_ = path_;
  requestedBatch_ = batch_;
  original_ = r.original;
  optimized_ = r.optimized;
  optimizedFused_ = r.optimizedFused;
  optimizedFor_ = r.request.plan.policy;
  passLog_ = r.passLog;
  // Edits name the old model's nodes; edits made while it loaded are pending
  // and applied with its plan.
  constraints_ = {};
  rejection_.reset();
  plan_.reset();
  predicted_.reset();
  metrics_->setPredicted(nullptr);
  clearMeasured();
  emit modelLoaded(path_);
}

void StudioSession::applyPlan(PipelineResult& r) {
  const bool valid = r.done(PipelineStage::Validate);
  replaceLater(plan_, valid ? r.plan : nullptr);
  if (valid) {
    // As asked (a device file stays a file, not the id inside it).
    plannedPolicy_ = r.request.plan.policy;
    plannedDevice_ = r.request.plan.device;
    pipeline::copyPolicyOptions(plannedOptions_, r.request.plan);
  }
  replaceLater(predicted_, valid ? r.predicted : nullptr);
  metrics_->setPredicted(predicted_, plan_.get());
  clearMeasured();
  if (valid && pendingConstraints_) {
    const quint64 request = pendingConstraints_->request;
    constraints_ = std::move(pendingConstraints_->constraints);
    pendingConstraints_.reset();
    rejection_.reset();
    emit settingsChanged();
    emit constraintsApplied(request);
  }
  emit planChanged();
  emit traceChanged();
}

void StudioSession::rejectConstraints(PipelineResult& r) {
  ConstraintsRejection rejection;
  rejection.request = pendingConstraints_->request;
  rejection.constraints = std::move(pendingConstraints_->constraints);
  rejection.diagnostics = r.diagnostics;
  rejection.validation = r.validation;
  if (r.failedStage == PipelineStage::Validate) rejection.rejectedPlan = r.plan;
  pendingConstraints_.reset();
  rejection_ = std::move(rejection);
  log_->warning(tr("Schedule edit refused: %1").arg(firstError(rejection_->diagnostics)));
  emit constraintsRejected(rejection_->request);
}

void StudioSession::revertSettings() {
  // The plan on screen is the truth: put the pickers back to what made it.
  if (!plan_) return;
  if (policy_ == plannedPolicy_ && device_ == plannedDevice_ && pipeline::samePolicyOptions(options_, plannedOptions_))
    return;
  policy_ = plannedPolicy_;
  device_ = plannedDevice_;
  pipeline::copyPolicyOptions(options_, plannedOptions_);
  emit settingsChanged();
}

void StudioSession::dropPendingConstraints(const QString& why) {
  if (!pendingConstraints_) return;
  const quint64 request = pendingConstraints_->request;
  pendingConstraints_.reset();
  log_->info(tr("Schedule edit %1 dropped: %2").arg(request).arg(why));
  emit constraintsDropped(request);
}

void StudioSession::clearMeasured() {
  const bool had = measured_ != nullptr || backend_ != RunBackend::None;
  measured_.reset();
  backend_ = RunBackend::None;
  runLabel_.clear();
  runMetrics_.clear();
  metrics_->clearMeasured();
  if (had) emit measuredTraceChanged();
}

void StudioSession::setDiagnostics(std::vector<StudioDiagnostic> diagnostics) {
  diagnostics_->setDiagnostics(std::move(diagnostics));
  emit diagnosticsChanged();
}

void StudioSession::logResult(const PipelineResult& r) {
  for (const auto& line : r.log) log_->info(QString::fromStdString(line));
  for (const auto& d : r.diagnostics) {
    const QString text =
        QStringLiteral("%1: %2").arg(stageLabel(d.stage), QString::fromStdString(ir::formatDiagnostic(d.diagnostic)));
    if (d.diagnostic.severity == ir::Severity::Error)
      log_->error(text);
    else if (d.diagnostic.severity == ir::Severity::Warning)
      log_->warning(text);
    else
      log_->info(text);
  }
  if (r.failedStage) log_->error(tr("%1 failed").arg(stageLabel(*r.failedStage)));
}

void StudioSession::jobEnded(quint64 job, const QString& error) {
  if (!error.isEmpty()) {
    // The work threw past every stage's guard: report it like a failure.
    running_.reset();
    log_->error(tr("internal error: %1").arg(error));
    setDiagnostics({{PipelineStage::Import, ir::makeError("internal error: " + error.toStdString())}});
    requestedPath_ = path_;
    dropPendingConstraints(QStringLiteral("an internal error"));
    revertSettings();
  }
  emit jobFinished(job, error.isEmpty() && lastJobOk_);
}

void StudioSession::jobCancelled() {
  const QString what = running_ ? running_->what : tr("job");
  const bool pipeline = running_ && running_->pipeline;
  running_.reset();
  log_->warning(tr("%1: cancelled").arg(what));
  if (pipeline) {
    requestedPath_ = path_;
    requestedBatch_ = batch_;
    dropPendingConstraints(QStringLiteral("cancelled"));
    revertSettings();
  }
  emit cancelled();
}

quint64 StudioSession::exportTo(ExportKind kind, const QString& path) {
  auto refuse = [this](const QString& why) -> quint64 {
    log_->warning(tr("Export: %1").arg(why));
    emit exportFinished(false, why);
    return 0;
  };
  if (isBusy()) return refuse(tr("busy with '%1'; wait for it or cancel it").arg(busyWhat()));
  if (path.isEmpty()) return refuse(tr("no file or folder given"));
  const bool needsPlan = kind == ExportKind::CudaProject || kind == ExportKind::HipProject ||
                         kind == ExportKind::ScheduleJson;
  if (needsPlan && !plan_) return refuse(tr("there is no valid plan to export"));
  if (kind == ExportKind::PredictedTrace && !predicted_) return refuse(tr("there is no predicted trace"));
  if (kind == ExportKind::MeasuredTrace && !measured_) return refuse(tr("nothing was run yet (Compile & Run first)"));
  if (kind == ExportKind::GraphDot && !optimized_) return refuse(tr("no model is loaded"));

  const std::filesystem::path file = path.toStdString();
  auto original = original_;
  auto optimized = graph();  // the plan's own when it has one (an IOS merge, attention fused)
  auto plan = plan_;
  auto predicted = predicted_;
  auto measured = measured_;
  const schedule::Constraints constraints = constraints_;
  const std::string model = path_.toStdString();
  std::function<ExportOutcome(const JobControl&)> work = [=](const JobControl& control) {
    ExportOutcome out;
    switch (kind) {
      case ExportKind::CudaProject:
      case ExportKind::HipProject: {
        ProjectExportRequest request;
        request.dir = file;
        request.target = kind == ExportKind::HipProject ? codegen::Target::Hip : codegen::Target::Cuda;
        request.modelName = std::filesystem::path(model).filename().string();
        pipeline::Artifacts given;
        given.original = original;
        given.optimized = optimized;
        given.plan = plan;
        auto written = runProjectExport(request, std::move(given), control);
        if (!written) {
          out.errors = written.errors();
          break;
        }
        out.message = QStringLiteral("wrote %1 files to %2; build: %3")
                          .arg(written->files.size())
                          .arg(QString::fromStdString(file.string()), QString::fromStdString(written->buildCommand));
        break;
      }
      case ExportKind::ScheduleJson:
        out.errors = writeTextFile(file, scheduleJson(*plan, constraints, predicted.get(), model));
        break;
      case ExportKind::PredictedTrace: out.errors = writeChromeTraceFile(file, *predicted); break;
      case ExportKind::MeasuredTrace: out.errors = writeChromeTraceFile(file, *measured); break;
      case ExportKind::GraphDot: out.errors = writeTextFile(file, graphDot(*optimized, plan.get())); break;
    }
    if (out.errors.empty() && out.message.isEmpty())
      out.message = QStringLiteral("wrote %1").arg(QString::fromStdString(file.string()));
    return out;
  };
  const QString what = tr("Exporting %1").arg(QFileInfo(path).fileName());
  running_ = Running{PipelineStage::Export, PipelineStage::Export, false, what};
  return job_->start<ExportOutcome>(what, std::move(work), [this](ExportOutcome& out) {
    running_.reset();
    lastJobOk_ = out.errors.empty();
    if (!out.errors.empty()) {
      std::vector<StudioDiagnostic> ds;
      for (auto& e : out.errors) ds.push_back({PipelineStage::Export, std::move(e)});
      const QString message = firstError(ds);
      log_->error(tr("Export failed: %1").arg(message));
      setDiagnostics(std::move(ds));
      emit exportFinished(false, message);
      return;
    }
    log_->info(out.message);
    emit exportFinished(true, out.message);
  });
}

}  // namespace rammer::viz
