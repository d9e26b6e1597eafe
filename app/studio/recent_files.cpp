#include "app/studio/recent_files.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
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

QMenu* RecentFiles::createMenu(const QString& title, QWidget* parent) {
  auto* menu = new QMenu(title, parent);
  auto rebuild = [this, menu] {
    menu->clear();
    const QStringList list = files();
    for (int i = 0; i < list.size(); ++i) {
      const QString path = list[i];
      QAction* a = menu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
      a->setToolTip(path);
      a->setStatusTip(path);
      connect(a, &QAction::triggered, this, [this, path] { emit openRequested(path); });
    }
    if (list.isEmpty()) menu->addAction(tr("(none)"))->setEnabled(false);
    menu->addSeparator();
    QAction* clearAll = menu->addAction(tr("Clear List"), this, &RecentFiles::clear);
    clearAll->setEnabled(!list.isEmpty());
  };
  connect(this, &RecentFiles::changed, menu, rebuild);
  rebuild();
  return menu;
}

}  // namespace rammer::studio
