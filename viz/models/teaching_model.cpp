#include "viz/models/teaching_model.h"

#include "viz/models/release_later.h"

#include <algorithm>

namespace rammer::viz {

TeachingModel::TeachingModel(QObject* parent) : QAbstractListModel(parent) {}

void TeachingModel::setPlan(std::shared_ptr<const schedule::Plan> plan) {
  std::vector<TeachingStep> steps = plan ? teachingSteps(*plan) : std::vector<TeachingStep>{};
  setSteps(std::move(plan), std::move(steps));
}

void TeachingModel::setSteps(std::shared_ptr<const schedule::Plan> plan, std::vector<TeachingStep> steps) {
  beginResetModel();
  replaceLater(plan_, std::move(plan));
  steps_ = plan_ ? std::move(steps) : std::vector<TeachingStep>{};
  stepOfOp_ = plan_ ? stepOfOps(*plan_, steps_) : std::vector<int>{};
  current_ = steps_.empty() ? -1 : 0;
  endResetModel();
  emit currentChanged(current_);
}

void TeachingModel::setCurrent(int row) {
  if (steps_.empty()) return;
  row = std::clamp(row, 0, static_cast<int>(steps_.size()) - 1);
  if (row == current_) return;
  const int old = current_;
  current_ = row;
  if (old >= 0) emit dataChanged(index(old), index(old), {CurrentRole});
  emit dataChanged(index(row), index(row), {CurrentRole});
  emit currentChanged(row);
}

bool TeachingModel::next() {
  if (current_ < 0 || current_ + 1 >= static_cast<int>(steps_.size())) return false;
  setCurrent(current_ + 1);
  return true;
}

bool TeachingModel::previous() {
  if (current_ <= 0) return false;
  setCurrent(current_ - 1);
  return true;
}

QList<int> TeachingModel::currentOps() const {
  QList<int> ops;
  if (current_ >= 0)
    for (int32_t op : steps_[static_cast<size_t>(current_)].ops) ops << op;
  return ops;
}

QList<int> TeachingModel::currentNodes() const {
  QList<int> nodes;
  for (int op : currentOps()) nodes << plan_->ops.at(static_cast<size_t>(op)).node;
  return nodes;
}

int TeachingModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(steps_.size());
}

QVariant TeachingModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.column() != 0 || index.row() < 0 || index.row() >= rowCount()) return {};
  const TeachingStep& s = steps_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole: {
      QString text = QStringLiteral("%1. %2").arg(index.row() + 1).arg(QString::fromStdString(s.title));
      if (!s.ops.empty()) text += QStringLiteral(" \u2014 %1 op%2").arg(s.ops.size()).arg(s.ops.size() == 1 ? "" : "s");
      return text;
    }
    case Qt::ToolTipRole:
    case ExplanationRole: return QString::fromStdString(s.explanation);
    case OpsRole: {
      QList<int> ops;
      for (int32_t op : s.ops) ops << op;
      return QVariant::fromValue(ops);
    }
    case NodesRole: {
      QList<int> nodes;
      for (int32_t op : s.ops) nodes << plan_->ops.at(static_cast<size_t>(op)).node;
      return QVariant::fromValue(nodes);
    }
    case RTasksRole: return QVariant::fromValue<qlonglong>(s.rtasks);
    case VeusRole: return s.veus;
    case BarriersRole: return s.barriers;
    case CurrentRole: return index.row() == current_;
    default: return {};
  }
}

QHash<int, QByteArray> TeachingModel::roleNames() const {
  QHash<int, QByteArray> names = QAbstractListModel::roleNames();
  names[ExplanationRole] = "explanation";
  names[OpsRole] = "ops";
  names[NodesRole] = "nodes";
  names[RTasksRole] = "rtasks";
  names[VeusRole] = "veus";
  names[BarriersRole] = "barriers";
  names[CurrentRole] = "current";
  return names;
}

}  // namespace rammer::viz
