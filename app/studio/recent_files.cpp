#include "app/studio/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace rammer::studio {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

RecentFiles::RecentFiles(QSettings* settings, QObject* parent) : QObject(parent), settings_(settings) {}

QStringList RecentFiles::files() const { return settings_->value(kKey).toStringList(); }

void RecentFiles::add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList list = files();
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMaxFiles) list.removeLast();
  store(list);
}

void RecentFiles::remove(const QString& path) {
  QStringList list = files();
  if (list.removeAll(QFileInfo(path).absoluteFilePath()) > 0) store(list);
}

void RecentFiles::clear() { store({}); }

void RecentFiles::store(const QStringList& list) {
  settings_->setValue(kKey, list);
  emit changed();
}

}  // namespace rammer::studio
