#pragma once
// The Log dock's lines: what each stage did and how long it took, what was
// cancelled or superseded, exports written. Keeps the newest maxLines().
#include <QAbstractListModel>
#include <QDateTime>
#include <QString>
#include <deque>

namespace rammer::viz {

class LogModel : public QAbstractListModel {
  Q_OBJECT

 public:
  enum class Level { Info, Warning, Error };
  enum Role { LevelRole = Qt::UserRole + 1, TimeRole, TextRole };
  static constexpr int kDefaultMaxLines = 5000;

  explicit LogModel(QObject* parent = nullptr, int maxLines = kDefaultMaxLines);
  int maxLines() const { return maxLines_; }

  void append(Level level, const QString& text);
  void info(const QString& text) { append(Level::Info, text); }
  void warning(const QString& text) { append(Level::Warning, text); }
  void error(const QString& text) { append(Level::Error, text); }
  void clear();

  // Every line as "hh:mm:ss.zzz level text", for copying or saving.
  QString toPlainText() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 signals:
  void lineAdded(int row);

 private:
  struct Line {
    QDateTime time;
    Level level;
    QString text;
  };
  QString format(const Line& line) const;
  std::deque<Line> lines_;
  int maxLines_;
};

}  // namespace rammer::viz
