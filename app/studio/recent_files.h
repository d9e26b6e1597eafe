#pragma once
// The File > Open Recent list, newest first, kept in QSettings
// ("recentFiles") so it survives restarts, and the menu that shows it.
#include <QObject>
#include <QStringList>

class QMenu;
class QSettings;
class QWidget;

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

  // A File > Open Recent menu that follows the list ("&1 name", ...,
  // Clear List); choosing a file emits openRequested.
  QMenu* createMenu(const QString& title, QWidget* parent);

 signals:
  void changed();
  void openRequested(const QString& path);

 private:
  void store(const QStringList& files);
  QSettings* settings_;
};

}  // namespace rammer::studio
