#include "viz/models/log_model.h"

#include <algorithm>

namespace rammer::viz {

namespace {

QString levelName(LogModel::Level level) {
  switch (level) {
    case LogModel::Level::Info: return QStringLiteral("info");
    case LogModel::Level::Warning: return QStringLiteral("warning");
    case LogModel::Level::Error: return QStringLiteral("error");
  }
  return {};
}

}  // namespace

LogModel::LogModel(QObject* parent, int maxLines) : QAbstractListModel(parent), maxLines_(std::max(1, maxLines)) {}

void LogModel::append(Level level, const QString& text) {
  if (static_cast<int>(lines_.size()) >= maxLines_) {
    beginRemoveRows({}, 0, 0);
    lines_.pop_front();
    endRemoveRows();
  }
  const int row = static_cast<int>(lines_.size());
  beginInsertRows({}, row, row);
  lines_.push_back({QDateTime::currentDateTime(), level, text});
  endInsertRows();
  emit lineAdded(row);
}

void LogModel::clear() {
  beginResetModel();
  lines_.clear();
  endResetModel();
}

QString LogModel::format(const Line& line) const {
  return QStringLiteral("%1 %2 %3").arg(line.time.toString(QStringLiteral("hh:mm:ss.zzz")), levelName(line.level),
                                        line.text);
}

QString LogModel::toPlainText() const {
  QString out;
  for (const Line& l : lines_) out += format(l) + QLatin1Char('\n');
  return out;
}

int LogModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(lines_.size());
}

QVariant LogModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.column() != 0 || index.row() < 0 || index.row() >= rowCount()) return {};
  const Line& l = lines_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return QStringLiteral("%1  %2").arg(l.time.toString(QStringLiteral("hh:mm:ss")), l.text);
    case Qt::ToolTipRole: return format(l);
    case LevelRole: return static_cast<int>(l.level);
    case TimeRole: return l.time;
    case TextRole: return l.text;
    default: return {};
  }
}

}  // namespace rammer::viz
