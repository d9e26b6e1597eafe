#pragma once
// The File > Open Recent list, newest first, kept in QSettings
// ("recentFiles") so it survives restarts.
#include <QObject>
#include <QStringList>

class QSettings;

namespace rammer::studio {

class RecentFiles : public QObject {
  Q_OBJECT
 public:
  static constexpr int kMaxFiles = 10;
  RecentFiles(QSettings* settings, QObject* parent = nullptr);

  QStringList files() const;
  // Moves (or puts) `path` first, as an absolute path.
  void add(const QString& path);
  void remove(const QString& path);
  void clear();

 signals:
  void changed();

 private:
  void store(const QStringList& files);
  QSettings* settings_;
};

}  // namespace rammer::studio
