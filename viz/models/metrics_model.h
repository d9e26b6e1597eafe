#pragma once
// The Metrics dock: the prediction beside what a run measured (GPU) or the
// CPU emulator recorded, one row per metric. Shared rows first (latency, SM
// efficiency, launches, rTasks, barriers, vEUs, and the plan's DRAM traffic
// from sim::figuresOf), then whatever else either trace or the run reported
// (CUPTI counters, output check, emulator threads).
// The measured column's header says where its numbers come from, so an
// emulated run is never mistaken for a GPU measurement.
#include <QAbstractTableModel>
#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/sim/trace.h"

namespace rammer::schedule {
struct Plan;
}

namespace rammer::viz {

class MetricsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { NameColumn, PredictedColumn, MeasuredColumn, RatioColumn, ColumnCount };
  enum Role { ValueRole = Qt::UserRole + 1 };  // the raw double of a value cell

  struct Row {
    QString name;
    std::optional<double> predicted;
    std::optional<double> measured;
    bool bytes = false;  // a byte count, shown as "12.3 MB"
  };

  explicit MetricsModel(QObject* parent = nullptr);

  // `plan`, the plan `trace` predicts, adds the figures read off the plan
  // itself (DRAM traffic); only read during the call.
  void setPredicted(std::shared_ptr<const sim::Trace> trace, const schedule::Plan* plan = nullptr);
  // `label` heads the measured column ("emulated: CPU (no GPU)"); `extra`
  // are the run's own numbers (latency statistics, CUPTI metrics, checks).
  void setMeasured(std::shared_ptr<const sim::Trace> trace, const QString& label,
                   std::vector<std::pair<std::string, double>> extra = {});
  void clearMeasured() { setMeasured(nullptr, QString()); }

  const std::vector<Row>& rows() const { return rows_; }
  // The row of a metric by name, or nullptr.
  const Row* find(const QString& name) const;
  QString measuredLabel() const { return measuredLabel_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  void rebuild();

  std::shared_ptr<const sim::Trace> predicted_;
  std::optional<double> predictedDramBytes_;
  std::shared_ptr<const sim::Trace> measured_;
  QString measuredLabel_;
  std::vector<std::pair<std::string, double>> extra_;
  std::vector<Row> rows_;
};

}  // namespace rammer::viz
