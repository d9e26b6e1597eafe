#include "viz/widgets/timeline_tooltip.h"

#include <cmath>

#include "viz/models/timeline_time_axis.h"

namespace rammer::viz {

QString describeHit(const TimelineModel& model, const TimelineHit& hit, bool comparisonLayer,
                    const TraceComparison* comparison, bool twoTraces) {
  const bool task = hit.kind == TimelineHit::Kind::Task;
  QString text = task ? model.describeTask(hit.index) : model.describeBarrier(hit.index);
  if (comparison && task) {
    const auto& slips = comparisonLayer ? comparison->slipOfMeasured : comparison->slipOfPredicted;
    const double slip = slips.at(static_cast<size_t>(hit.index));
    const QString d = formatDuration(slip);
    text += std::isnan(slip) ? QStringLiteral("\nslip: no partner in the other trace")
                             : QStringLiteral("\nslip (start in comparison - start in main trace): %1")
                                   .arg(slip > 0 ? QStringLiteral("+") + d : d);
  }
  if (twoTraces) {
    const std::string& source = model.trace().source;
    text = QStringLiteral("[%1]\n").arg(QString::fromStdString(
               source.empty() ? (comparisonLayer ? "comparison" : "main") : source)) +
           text;
  }
  return text;
}

QString describeLane(const TimelineModel& model, int lane) {
  const TimelineLane& l = model.lane(lane);
  const auto tasks = static_cast<qulonglong>(model.tasks().laneSize(lane));
  if (l.folded())
    return QStringLiteral("SM %1 · %2 vEUs, folded · %3 rTasks (double-click the name to unfold)").arg(l.sm).arg(l.veus).arg(tasks);
  return QStringLiteral("SM %1 · vEU %2 · %3 rTasks (double-click the name to fold the SM)").arg(l.sm).arg(l.veu).arg(tasks);
}

}  // namespace rammer::viz
