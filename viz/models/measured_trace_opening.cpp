#include "viz/models/measured_trace_opening.h"

#include <QFileInfo>

#include "core/sim/measured_trace.h"

namespace rammer::viz {

OpenedMeasuredTrace openMeasuredTraceFor(const std::string& file, const schedule::Plan& plan) {
  OpenedMeasuredTrace out;
  auto t = sim::loadMeasuredTrace(file);
  if (!t) {
    out.errors = t.errors();
    return out;
  }
  out.trace = std::make_shared<const sim::Trace>(sim::alignToPlan(std::move(t).value(), plan, &out.dropped));
  return out;
}

SideJob measuredTraceJob(const QString& path, const pipeline::Artifacts& given) {
  const auto tr = sessionText;
  const QString title = tr("Open measured trace");
  if (!given.plan) return refusedJob(title, tr("open a model first: a measured trace lies beside its plan"));
  const QString name = QFileInfo(path).fileName();
  SideJob job{title, {}, tr("Opening %1").arg(name), PipelineStage::Run, given.plan, {}};
  job.work = [plan = given.plan, file = path.toStdString(), name](const pipeline::Control&) -> SideJob::Finish {
    auto out = std::make_shared<OpenedMeasuredTrace>(openMeasuredTraceFor(file, *plan));
    return [out, name](bool planChanged) { return measuredTraceReport(*out, name, planChanged); };
  };
  return job;
}

SideJobReport measuredTraceReport(OpenedMeasuredTrace& out, const QString& name, bool planChanged) {
  const auto tr = sessionText;
  SideJobReport r;
  if (!out.errors.empty()) {
    r.error(tr("Open measured trace %1: %2").arg(name, QString::fromStdString(out.errors.front().message)));
    return r;
  }
  if (planChanged) {
    r.info(tr("Open measured trace: the plan changed meanwhile; open it again"));
    return r;
  }
  if (out.trace->tasks.empty()) {
    r.error(tr("Open measured trace: none of %1's operators is in this plan (another model?)").arg(name));
    return r;
  }
  r.ok = r.jobOk = true;
  if (out.dropped > 0) r.warning(tr("%1: %2 rTasks of operators this plan lacks were left out").arg(name).arg(out.dropped));
  auto opened = std::make_shared<pipeline::RunRecord>();
  opened->label = tr("%1 (%2)").arg(QString::fromStdString(out.trace->source), name).toStdString();
  opened->trace = std::move(out.trace);
  r.info(tr("Measured trace %1: %2 us, beside the plan's prediction").arg(name).arg(opened->trace->totalUs, 0, 'f', 1));
  r.run = std::move(opened);
  return r;
}

}  // namespace rammer::viz
