#pragma once
// A job the session runs beside the pipeline (an export, a compile with
// NVRTC, a measured trace opened): what its own file says about it before
// it starts (SideJob: why it may not, its work) and what it leaves for the
// document (SideJobReport: the lines for the Log and what to apply). Each
// job's file makes both (exportJob, nvrtcJob, measuredTraceJob), so the
// checks and the wording live with the job; StudioSession starts every one
// the same way (startSideJob), applies its report and emits the job's
// signal with `ok`.
#include <QString>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/pipeline/pipeline.h"
#include "viz/models/log_model.h"
#include "viz/models/studio_pipeline.h"

namespace rammer::viz {

struct SideJobReport {
  bool ok = false;     // the job's own signal: it did what was asked
  bool jobOk = false;  // jobFinished's verdict (the job itself failed or not)
  std::vector<std::pair<LogModel::Level, QString>> log;
  std::vector<ir::Diagnostic> diagnostics;         // replace the session's when not empty
  std::shared_ptr<const schedule::Plan> plan;      // replaces the session's plan
  std::shared_ptr<const pipeline::RunRecord> run;  // the session's run from now on
  QString message;                                 // the job's answer (exportFinished's)

  void info(QString text) { log.emplace_back(LogModel::Level::Info, std::move(text)); }
  void warning(QString text) { log.emplace_back(LogModel::Level::Warning, std::move(text)); }
  void error(QString text) { log.emplace_back(LogModel::Level::Error, std::move(text)); }
};

// The job as its file describes it to the session.
struct SideJob {
  QString title;    // what the Log calls it ("Export"); a refusal is logged as "<title>: <refusal>"
  QString refusal;  // not empty: it does not start, for this reason
  QString what;     // its name while it runs (PipelineJob::currentWhat)
  PipelineStage stage = PipelineStage::Export;  // the stage it stands for while it runs
  std::shared_ptr<const schedule::Plan> plan;   // the plan it works from, or null
  // Run off the UI thread; returns how to report the result once the
  // session knows whether its plan changed meanwhile.
  using Finish = std::function<SideJobReport(bool planChanged)>;
  std::function<Finish(const pipeline::Control&)> work;
};

// A job refused before it starts.
SideJob refusedJob(QString title, QString why);

// `text` translated in the session's context: the reports speak for it.
QString sessionText(const char* text);

// `ds` with the ones that name no stage tagged with `stage`.
std::vector<ir::Diagnostic> taggedDiagnostics(PipelineStage stage, std::vector<ir::Diagnostic> ds);
// The first error of `ds` as one line ("unknown error" when there is none).
QString firstErrorText(const std::vector<ir::Diagnostic>& ds);
// A failed job: its errors tagged with `stage`, the first one logged as
// "<what> failed: ...", and as its message.
SideJobReport failedReport(PipelineStage stage, std::vector<ir::Diagnostic> errors, const QString& what);

}  // namespace rammer::viz
