#pragma once
// The Diagnostics dock's rows: one per diagnostic as the pipeline reports
// it (tagged with its stage), columns severity, stage, node, rTask (when the
// diagnostic names one) and message (the file goes into the tooltip).
// Errors first is the pipeline's order already: a stage stops at its first
// failure.
#include <QAbstractTableModel>
#include <vector>

#include "viz/models/studio_pipeline.h"

namespace rammer::viz {

class DiagnosticsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { SeverityColumn, StageColumn, NodeColumn, RTaskColumn, MessageColumn, ColumnCount };
  enum Role {
    SeverityRole = Qt::UserRole + 1,  // int(ir::Severity)
    NodeRole,                         // node or value name ("" when none)
    StageRole,                        // int(PipelineStage)
    RTaskRole,                        // QList<int>{plan op, rTask id}; empty when it names none
  };

  explicit DiagnosticsModel(QObject* parent = nullptr);

  void setDiagnostics(std::vector<ir::Diagnostic> diagnostics);
  const std::vector<ir::Diagnostic>& diagnostics() const { return rows_; }
  const ir::Diagnostic* at(int row) const;
  int count(ir::Severity severity) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<ir::Diagnostic> rows_;
};

QString severityName(ir::Severity severity);

}  // namespace rammer::viz
