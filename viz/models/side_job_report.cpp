#include "viz/models/side_job_report.h"

#include <QCoreApplication>

namespace rammer::viz {

QString sessionText(const char* text) { return QCoreApplication::translate("rammer::viz::StudioSession", text); }

std::vector<ir::Diagnostic> taggedDiagnostics(PipelineStage stage, std::vector<ir::Diagnostic> ds) {
  for (auto& d : ds)
    if (d.stage.empty()) d = pipeline::inStage(stage, std::move(d));
  return ds;
}

QString firstErrorText(const std::vector<ir::Diagnostic>& ds) {
  for (const auto& d : ds)
    if (d.severity == ir::Severity::Error) return QString::fromStdString(ir::formatDiagnostic(d));
  return ds.empty() ? QStringLiteral("unknown error") : QString::fromStdString(ir::formatDiagnostic(ds.front()));
}

SideJob refusedJob(QString title, QString why) {
  SideJob job;
  job.title = std::move(title);
  job.refusal = std::move(why);
  return job;
}

SideJobReport failedReport(PipelineStage stage, std::vector<ir::Diagnostic> errors, const QString& what) {
  SideJobReport r;
  r.diagnostics = taggedDiagnostics(stage, std::move(errors));
  r.message = firstErrorText(r.diagnostics);
  r.error(sessionText("%1 failed: %2").arg(what, r.message));
  return r;
}

}  // namespace rammer::viz
