#include "viz/models/studio_session.h"

#include <QFileInfo>
#include <algorithm>

#include "core/device/device_spec.h"
#include "core/pipeline/pipeline.h"
#include "core/schedule/policy.h"
#include "viz/models/diagnostics_model.h"
#include "viz/models/log_model.h"
#include "viz/models/measured_trace_opening.h"
#include "viz/models/metrics_model.h"
#include "viz/models/nvrtc_compile_job.h"
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

}  // namespace

StudioSession::StudioSession(QObject* parent)
    : QObject(parent),
      job_(new PipelineJob(this)),
      diagnostics_(new DiagnosticsModel(this)),
      log_(new LogModel(this)),
      metrics_(new MetricsModel(this)) {
  requested_ = studioOptions({}, pipeline::PlanChoices{.device = kDefaultDevice});
  applied_ = requested_;
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
QString StudioSession::defaultPolicy() { return QString::fromStdString(schedule::defaultPolicyName()); }
QStringList StudioSession::deviceIds() { return toQStringList(device::presetIds()); }

const std::vector<ir::Diagnostic>& StudioSession::diagnostics() const { return diagnostics_->diagnostics(); }

std::shared_ptr<const sim::Trace> StudioSession::measuredTrace() const {
  return artifacts_.run ? artifacts_.run->trace : nullptr;
}

QString StudioSession::runLabel() const {
  return artifacts_.run ? QString::fromStdString(artifacts_.run->label) : QString();
}

const std::vector<std::pair<std::string, double>>& StudioSession::runMetrics() const {
  static const std::vector<std::pair<std::string, double>> none;
  return artifacts_.run ? artifacts_.run->metrics : none;
}

bool StudioSession::isBusy() const { return job_ && job_->isBusy(); }
QString StudioSession::busyWhat() const { return job_ ? job_->currentWhat() : QString(); }
void StudioSession::waitForWorkers() { job_->waitForWorkers(); }

bool StudioSession::loading() const {
  return isBusy() && running_ && running_->pipeline && running_->from == PipelineStage::Import;
}

quint64 StudioSession::openModel(const QString& path, int64_t batch) {
  dropPendingConstraints(QStringLiteral("a new model was opened"));
  requested_.modelPath = path.toStdString();
  requested_.import.batch = batch > 0 ? batch : 1;
  log_->info(tr("Opening %1 (batch %2)").arg(path).arg(*requested_.import.batch));
  return submit(PipelineStage::Import, PipelineStage::Simulate);
}

quint64 StudioSession::setPolicy(const QString& policy) {
  const ir::Result<schedule::PolicyId> parsed = schedule::parsePolicy(policy.trimmed().toStdString());
  if (!parsed) {  // refused before any work; the picker keeps the policy of the plan on screen
    log_->error(tr("Policy: %1").arg(QString::fromStdString(parsed.errors().front().message)));
    setDiagnostics(taggedDiagnostics(PipelineStage::Schedule, parsed.errors()));
    emit settingsChanged();
    return 0;
  }
  const schedule::PolicyId p = *parsed;
  if (p == requested_.policy) return 0;
  // Under the Auto epilogue fusion mode IOS and GraphTurbo take the graph
  // without epilogue fusion, the others with it (pipeline::fusesEpilogues):
  // a switch across that line optimizes the model again, a new graph with a
  // new plan.
  const pipeline::EpilogueFusion mode = requested_.epilogues;
  const bool reoptimize = pipeline::fusesEpilogues(mode, p) != pipeline::fusesEpilogues(mode, requested_.policy);
  requested_.policy = p;
  emit settingsChanged();
  if (!hasModel() && !loading()) return 0;
  return submit(reoptimize ? PipelineStage::Optimize : PipelineStage::Schedule, PipelineStage::Simulate);
}

void StudioSession::setRunTarget(RunTarget target) {
  if (target == requested_.run.target) return;
  requested_.run.target = target;
  emit settingsChanged();
}

void StudioSession::setLaunchMode(runtime::LaunchMode mode) {
  if (mode == launchMode()) return;
  requested_.run.gpu.run.launch = mode;
  requested_.run.host.launch = mode;
  emit settingsChanged();
}

quint64 StudioSession::setIosVariant(const QString& variant) {
  pipeline::PlanChoices c = planChoices();
  c.ios.variant = variant.trimmed().toStdString();
  return setPolicyOptions(c);
}

pipeline::PlanChoices StudioSession::planChoices() const {
  pipeline::PlanChoices c;
  pipeline::copyPolicyOptions(c, requested_);
  c.policy = requested_.policy;
  c.device = requested_.device;
  c.batch = batch();
  c.constraints = applied_.constraints;
  return c;
}

quint64 StudioSession::setPolicyOptions(const pipeline::PlanChoices& c) {
  const pipeline::Options& o = requested_;
  const bool epilogues =
      pipeline::fusesEpilogues(c.epilogues, o.policy) != pipeline::fusesEpilogues(o.epilogues, o.policy);
  const bool fusion = c.attention != o.attention || epilogues;
  const bool ownOptions =
      (o.policy == schedule::PolicyId::Ios && c.ios != o.ios) ||
      (o.policy == schedule::PolicyId::GraphTurbo && c.graphturbo != o.graphturbo) ||
      (c.launchFallback != o.launchFallback && pipeline::weighsLaunches(o.policy)) || c.residentCells != o.residentCells;
  if (pipeline::samePolicyOptions(c, o)) return 0;
  pipeline::copyPolicyOptions(requested_, c);
  emit settingsChanged();
  if ((!fusion && !ownOptions) || (!hasModel() && !loading())) return 0;
  return submit(fusion ? PipelineStage::Optimize : PipelineStage::Schedule, PipelineStage::Simulate);
}

quint64 StudioSession::setDevice(const QString& device) {
  const std::string d = device.trimmed().toStdString();
  if (d == requested_.device) return 0;
  requested_.device = d;
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
    rejection.diagnostics.push_back(
        pipeline::inStage(PipelineStage::Schedule, ir::makeError("no model is loaded")));
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
  return submit(plan() ? PipelineStage::Run : PipelineStage::Schedule, PipelineStage::Run);
}

quint64 StudioSession::compileWithNvrtc() {
  return startSideJob(nvrtcJob(applied_, artifacts_), [this](const SideJobReport& r) { emit nvrtcCompiled(r.ok); });
}

quint64 StudioSession::openMeasuredTrace(const QString& path) {
  return startSideJob(measuredTraceJob(path, artifacts_), [this](const SideJobReport& r) { emit measuredOpened(r.ok); });
}

quint64 StudioSession::startSideJob(SideJob job, std::function<void(const SideJobReport&)> done) {
  if (isBusy()) job = refusedJob(job.title, tr("busy with '%1'; wait for it or cancel it").arg(busyWhat()));
  if (!job.refusal.isEmpty()) {
    log_->warning(tr("%1: %2").arg(job.title, job.refusal));
    SideJobReport refused;
    refused.message = job.refusal;
    done(refused);
    return 0;
  }
  running_ = Running{job.stage, job.stage, false, job.what};
  return job_->start<SideJob::Finish>(job.what, std::move(job.work),
                                      [this, plan = job.plan, done = std::move(done)](SideJob::Finish& finish) {
                                        SideJobReport report = finish(this->plan() != plan);
                                        applyReport(report);
                                        done(report);
                                      });
}

void StudioSession::cancel() { job_->cancel(); }

QString StudioSession::describe(PipelineStage from, PipelineStage to) const {
  if (from == PipelineStage::Import)
    return tr("Loading %1").arg(QFileInfo(QString::fromStdString(requested_.modelPath)).fileName());
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

  PipelineRequest q{from, to, requested_, {}};
  if (pendingConstraints_)
    q.options.constraints = pendingConstraints_->constraints;
  else if (from != PipelineStage::Import)
    q.options.constraints = applied_.constraints;  // a new model starts without edits
  // The stages from `from` on drop their own values and recompute them.
  if (from != PipelineStage::Import) q.given = artifacts_;

  const QString what = describe(from, to);
  running_ = Running{from, to, true, what};
  return job_->start<PipelineResult>(
      what, [q = std::move(q)](const pipeline::Control& control) mutable { return runPipeline(std::move(q), control); },
      [this](PipelineResult& r) { apply(r); });
}

void StudioSession::apply(PipelineResult& r) {
  running_.reset();
  lastJobOk_ = r.ok();
  logResult(r);
  const PipelineRequest& q = r.request;
  pipeline::Artifacts& a = r.artifacts;
  const bool load = q.from == PipelineStage::Import;

  if (load) {
    if (!r.done(PipelineStage::Optimize)) {
      // A failed open keeps the model that was there.
      requested_.modelPath = applied_.modelPath;
      requested_.import.batch = applied_.import.batch;
      setDiagnostics(std::move(r.report.diagnostics));
      dropPendingConstraints(QStringLiteral("the model did not load"));
      emit loadFailed(firstErrorText(diagnostics()));
      return;
    }
    applyModel(r);
  } else if (q.from == PipelineStage::Optimize && r.done(PipelineStage::Validate)) {
    // Optimized again for another policy (epilogue fusion follows it): the
    // plan applied below is on the new graph, and the views take that graph
    // with the plan (as an IOS merge's). Edits and the undo stack stay.
    replaceLater(artifacts_.optimized, a.optimized);
    replaceLater(artifacts_.optimizedFused, a.optimizedFused);
    artifacts_.passLog = a.passLog;
    optimizedFor_ = q.options.policy;
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
    if (r.done(PipelineStage::Run)) setRun(a.run);
    emit runFinished(r.done(PipelineStage::Run));
  }
  setDiagnostics(std::move(r.report.diagnostics));
}

void StudioSession::applyModel(PipelineResult& r) {
  const pipeline::Options& o = r.request.options;
  applied_.modelPath = requested_.modelPath = o.modelPath;
  applied_.import.batch = requested_.import.batch = o.import.batch;
  pipeline::Artifacts& a = r.artifacts;
  artifacts_.original = a.original;
  artifacts_.optimized = a.optimized;
  artifacts_.optimizedFused = a.optimizedFused;
  artifacts_.passLog = a.passLog;
  optimizedFor_ = o.policy;
  // Edits name the old model's nodes; edits made while it loaded are pending
  // and applied with its plan.
  applied_.constraints = {};
  rejection_.reset();
  artifacts_.plan.reset();
  artifacts_.validation.reset();
  artifacts_.predicted.reset();
  metrics_->setPredicted(nullptr);
  clearMeasured();
  emit modelLoaded(modelPath());
}

void StudioSession::applyPlan(PipelineResult& r) {
  const bool valid = r.done(PipelineStage::Validate);
  pipeline::Artifacts& a = r.artifacts;
  replaceLater(artifacts_.plan, valid ? a.plan : nullptr);
  if (valid) {
    const pipeline::Options& o = r.request.options;
    applied_.policy = o.policy;
    applied_.device = o.device;
    pipeline::copyPolicyOptions(applied_, o);
    artifacts_.validation = std::move(a.validation);
    artifacts_.attention = a.attention;
    artifacts_.scheduleSeconds = a.scheduleSeconds;
  } else {
    artifacts_.validation.reset();
  }
  replaceLater(artifacts_.predicted, valid ? a.predicted : nullptr);
  metrics_->setPredicted(artifacts_.predicted, artifacts_.plan.get());
  clearMeasured();
  if (valid && pendingConstraints_) {
    const quint64 request = pendingConstraints_->request;
    applied_.constraints = std::move(pendingConstraints_->constraints);
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
  rejection.diagnostics = r.report.diagnostics;
  rejection.validation = r.artifacts.validation;
  if (r.report.failedStage == PipelineStage::Validate) rejection.rejectedPlan = r.artifacts.plan;
  pendingConstraints_.reset();
  rejection_ = std::move(rejection);
  log_->warning(tr("Schedule edit refused: %1").arg(firstErrorText(rejection_->diagnostics)));
  emit constraintsRejected(rejection_->request);
}

void StudioSession::revertSettings() {
  // The plan on screen is the truth: put the pickers back to what made it.
  if (!plan()) return;
  if (requested_.policy == applied_.policy && requested_.device == applied_.device &&
      pipeline::samePolicyOptions(requested_, applied_))
    return;
  requested_.policy = applied_.policy;
  requested_.device = applied_.device;
  pipeline::copyPolicyOptions(requested_, applied_);
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
  const bool had = artifacts_.run != nullptr;
  releaseLater(artifacts_.run);
  metrics_->clearMeasured();
  if (had) emit measuredTraceChanged();
}

void StudioSession::setRun(std::shared_ptr<const pipeline::RunRecord> run) {
  replaceLater(artifacts_.run, std::move(run));
  metrics_->setMeasured(measuredTrace(), runLabel(), runMetrics());
  emit measuredTraceChanged();
}

void StudioSession::setDiagnostics(std::vector<ir::Diagnostic> diagnostics) {
  diagnostics_->setDiagnostics(std::move(diagnostics));
  emit diagnosticsChanged();
}

void StudioSession::logResult(const PipelineResult& r) {
  for (const auto& line : r.report.log) log_->info(QString::fromStdString(line));
  for (const auto& d : r.report.diagnostics) {
    const QString text =
        QStringLiteral("%1: %2").arg(stageLabel(stageOf(d)), QString::fromStdString(ir::formatDiagnostic(d)));
    if (d.severity == ir::Severity::Error)
      log_->error(text);
    else if (d.severity == ir::Severity::Warning)
      log_->warning(text);
    else
      log_->info(text);
  }
  if (r.report.failedStage) log_->error(tr("%1 failed").arg(stageLabel(*r.report.failedStage)));
}

void StudioSession::jobEnded(quint64 job, const QString& error) {
  if (!error.isEmpty()) {
    // The work threw past every stage's guard: report it like a failure.
    running_.reset();
    log_->error(tr("internal error: %1").arg(error));
    setDiagnostics({pipeline::inStage(PipelineStage::Import, ir::makeError("internal error: " + error.toStdString()))});
    requested_.modelPath = applied_.modelPath;
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
    requested_.modelPath = applied_.modelPath;
    requested_.import.batch = applied_.import.batch;
    dropPendingConstraints(QStringLiteral("cancelled"));
    revertSettings();
  }
  emit cancelled();
}

quint64 StudioSession::exportTo(ExportKind kind, const QString& path) {
  return startSideJob(exportJob(kind, path, applied_, artifacts_),
                      [this](const SideJobReport& r) { emit exportFinished(r.ok, r.message); });
}

void StudioSession::applyReport(SideJobReport& r) {
  running_.reset();
  lastJobOk_ = r.jobOk;
  for (const auto& [level, text] : r.log) log_->append(level, text);
  if (!r.diagnostics.empty()) setDiagnostics(std::move(r.diagnostics));
  if (r.plan) {
    artifacts_.plan = std::move(r.plan);
    emit planChanged();
  }
  if (r.run) setRun(std::move(r.run));
}

}  // namespace rammer::viz
