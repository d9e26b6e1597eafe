#include "viz/models/metrics_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/ops/model_summary.h"
#include "core/sim/plan_figures.h"

namespace rammer::viz {

namespace {

// The numbers every trace has, derived from its events.
std::vector<std::pair<QString, double>> coreMetrics(const sim::Trace& t) {
  int maxVeus = 0;
  for (const auto& p : t.programs) maxVeus = std::max(maxVeus, p.numVEUs);
  double barrierWait = 0;
  for (const auto& b : t.barriers) barrierWait += b.endUs - b.startUs;
  return {
      {QStringLiteral("Latency (us)"), t.totalUs},
      {QStringLiteral("SM efficiency (%)"), 100 * t.smEfficiency},
      {QStringLiteral("Kernel launches (rPrograms)"), static_cast<double>(t.programs.size())},
      {QStringLiteral("rTasks"), static_cast<double>(t.tasks.size())},
      {QStringLiteral("Barrier-rTasks"), static_cast<double>(t.barriers.size())},
      {QStringLiteral("vEUs (largest program)"), static_cast<double>(maxVeus)},
      {QStringLiteral("Barrier wait (vEU-us)"), barrierWait},
  };
}

QString formatValue(double v) {
  if (std::isnan(v)) return QStringLiteral("nan");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  if (v == std::floor(v) && std::fabs(v) < 1e12) return QString::number(static_cast<qint64>(v));
  if (std::fabs(v) >= 1e-3 && std::fabs(v) < 1e7) return QString::number(v, 'f', std::fabs(v) < 10 ? 3 : 1);
  return QString::number(v, 'g', 4);
}

}  // namespace

MetricsModel::MetricsModel(QObject* parent) : QAbstractTableModel(parent) {}

void MetricsModel::setPredicted(std::shared_ptr<const sim::Trace> trace, const schedule::Plan* plan) {
  predicted_ = std::move(trace);
  predictedDramBytes_.reset();
  if (predicted_ && plan) predictedDramBytes_ = sim::figuresOf(*plan).dramBytes;
  rebuild();
}

void MetricsModel::setMeasured(std::shared_ptr<const sim::Trace> trace, const QString& label,
                               std::vector<std::pair<std::string, double>> extra) {
  measured_ = std::move(trace);
  measuredLabel_ = label;
  extra_ = std::move(extra);
  rebuild();
}

const MetricsModel::Row* MetricsModel::find(const QString& name) const {
  for (const Row& r : rows_)
    if (r.name == name) return &r;
  return nullptr;
}

void MetricsModel::rebuild() {
  beginResetModel();
  rows_.clear();
  auto rowFor = [this](const QString& name) -> Row& {
    for (Row& r : rows_)
      if (r.name == name) return r;
    rows_.push_back(Row{name, std::nullopt, std::nullopt});
    return rows_.back();
  };
  if (predicted_)
    for (const auto& [name, v] : coreMetrics(*predicted_)) rowFor(name).predicted = v;
  if (measured_)
    for (const auto& [name, v] : coreMetrics(*measured_)) rowFor(name).measured = v;
  if (predictedDramBytes_) {
    // The rKernels' global traffic less their L2 re-reads, as the cost
    // model charges it; no run measures it yet.
    Row& r = rowFor(QStringLiteral("DRAM traffic (predicted)"));
    r.predicted = *predictedDramBytes_;
    r.bytes = true;
  }
  // Named extras, sorted by name so the table does not jump between runs;
  // those the rows above already show are left out.
  static const std::set<std::string> shown = {"rtasks", "barriers", "programs", "barrier_wait_veu_us",
                                              "barrier_wait_us"};
  std::map<QString, Row> named;
  if (predicted_)
    for (const auto& [k, v] : predicted_->metrics)
      if (!shown.count(k)) named[QString::fromStdString(k)].predicted = v;
  if (measured_)
    for (const auto& [k, v] : measured_->metrics)
      if (!shown.count(k)) named[QString::fromStdString(k)].measured = v;
  for (const auto& [k, v] : extra_) named[QString::fromStdString(k)].measured = v;
  for (auto& [name, row] : named) {
    row.name = name;
    Row& r = rowFor(name);
    if (row.predicted) r.predicted = row.predicted;
    if (row.measured) r.measured = row.measured;
  }
  endResetModel();
}

int MetricsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int MetricsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant MetricsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() < 0 || index.row() >= rowCount()) return {};
  const Row& r = rows_[static_cast<size_t>(index.row())];
  std::optional<double> value;
  switch (index.column()) {
    case NameColumn:
      return role == Qt::DisplayRole || role == Qt::ToolTipRole ? QVariant(r.name) : QVariant();
    case PredictedColumn: value = r.predicted; break;
    case MeasuredColumn: value = r.measured; break;
    case RatioColumn:
      // Only a GPU measurement is comparable with the prediction; an
      // emulation's wall-clock times are not.
      if (measured_ && measured_->measured && r.predicted && r.measured && *r.predicted != 0)
        value = *r.measured / *r.predicted;
      break;
    default: return {};
  }
  if (!value) return role == Qt::DisplayRole ? QVariant(QStringLiteral("-")) : QVariant();
  switch (role) {
    case Qt::DisplayRole:
      if (index.column() == RatioColumn) return QStringLiteral("%1x").arg(*value, 0, 'f', 2);
      if (r.bytes) return QString::fromStdString(ops::formatBytes(static_cast<int64_t>(*value)));
      return formatValue(*value);
    case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    case ValueRole: return *value;
    default: return {};
  }
}

QVariant MetricsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    if (section == PredictedColumn && predicted_) return QString::fromStdString(predicted_->source);
    if (section == MeasuredColumn && measured_) return QString::fromStdString(measured_->source);
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn: return tr("Metric");
    case PredictedColumn: return tr("Predicted");
    case MeasuredColumn: return measuredLabel_.isEmpty() ? tr("Measured") : measuredLabel_;
    case RatioColumn: return tr("Measured / predicted");
    default: return {};
  }
}

}  // namespace rammer::viz
