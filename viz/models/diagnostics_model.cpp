#include "viz/models/diagnostics_model.h"

#include <algorithm>

namespace rammer::viz {

QString severityName(ir::Severity severity) {
  switch (severity) {
    case ir::Severity::Error: return QStringLiteral("error");
    case ir::Severity::Warning: return QStringLiteral("warning");
    case ir::Severity::Note: return QStringLiteral("note");
  }
  return QStringLiteral("?");
}

DiagnosticsModel::DiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiagnosticsModel::setDiagnostics(std::vector<ir::Diagnostic> diagnostics) {
  beginResetModel();
  rows_ = std::move(diagnostics);
  endResetModel();
}

const ir::Diagnostic* DiagnosticsModel::at(int row) const {
  return row >= 0 && row < static_cast<int>(rows_.size()) ? &rows_[static_cast<size_t>(row)] : nullptr;
}

int DiagnosticsModel::count(ir::Severity severity) const {
  return static_cast<int>(std::count_if(rows_.begin(), rows_.end(),
                                        [severity](const auto& d) { return d.severity == severity; }));
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int DiagnosticsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const {
  const ir::Diagnostic* d = index.isValid() ? at(index.row()) : nullptr;
  if (!d) return {};
  const ir::Diagnostic& g = *d;
  const PipelineStage stage = stageOf(g);
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case SeverityColumn: return severityName(g.severity);
        case StageColumn: return stageLabel(stage);
        case NodeColumn: return QString::fromStdString(g.node);
        case RTaskColumn: return g.hasRTask() ? QStringLiteral("#%1").arg(g.rtask) : QString();
        case MessageColumn: return QString::fromStdString(g.message);
        default: return {};
      }
    case Qt::ToolTipRole:
      return QStringLiteral("%1 (%2): %3").arg(severityName(g.severity), stageLabel(stage),
                                               QString::fromStdString(ir::formatDiagnostic(g)));
    case SeverityRole: return static_cast<int>(g.severity);
    case NodeRole: return QString::fromStdString(g.node);
    case StageRole: return static_cast<int>(stage);
    case RTaskRole:
      return g.hasRTask() ? QVariant::fromValue(QList<int>{g.rtaskOp, static_cast<int>(g.rtask)}) : QVariant();
    default: return {};
  }
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case SeverityColumn: return tr("Severity");
    case StageColumn: return tr("Stage");
    case NodeColumn: return tr("Node");
    case RTaskColumn: return tr("rTask");
    case MessageColumn: return tr("Message");
    default: return {};
  }
}

}  // namespace rammer::viz
