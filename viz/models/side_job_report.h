#pragma once
// What a job the session runs beside the pipeline (an export, a compile
// with NVRTC, a measured trace opened) leaves for the document: the lines
// for the Log and what to apply. Each job's own file turns its result into
// one (nvrtcReport, measuredTraceReport, exportReport), so the wording and
// the checks live with the job; StudioSession applies every report the same
// way and emits the job's signal with `ok`.
#include <QString>
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
