#pragma once
// The studio's Export menu: the actions (CUDA/HIP project, schedule JSON,
// predicted and run traces, graph as DOT/SVG/PNG, timeline as PNG), their
// file dialogs with a default name (model-policy-device) in the last
// export folder, and the exports that draw widgets. Long exports run on the
// session's worker; the window only shows the menu.
#include <QList>
#include <QObject>
#include <QString>

#include "viz/models/studio_session.h"

class QAction;
class QMenu;
class QSettings;
class QWidget;

namespace rammer::viz {
class StudioSession;
}

namespace rammer::studio {

class StudioDocks;

class StudioExports : public QObject {
  Q_OBJECT

 public:
  StudioExports(QWidget* window, viz::StudioSession* session, QSettings* settings, StudioDocks* docks);

  // Every export action ("exportCudaProject", ...), in menu order; a null
  // entry is a separator.
  const QList<QAction*>& actions() const { return actions_; }
  // The File > Export submenu.
  QMenu* menu() const { return menu_; }
  // Enables what the session's state allows.
  void updateActions();

  // Without dialogs (tests, automation): the job id of a worker export.
  quint64 exportTo(viz::ExportKind kind, const QString& path);
  // Graph as SVG or PNG (by suffix), timeline as PNG; "" on success.
  QString exportGraphImage(const QString& path);
  QString exportTimelineImage(const QString& path);

 signals:
  // A line for the status bar.
  void message(const QString& text);

 private:
  QAction* add(const QString& name, const QString& text);
  void choose(viz::ExportKind kind);
  void chooseImage(bool graph, const QString& suffix);
  QString defaultName(const QString& suffix) const;
  QString directory() const;
  void rememberDirectory(const QString& path);

  QWidget* window_;
  viz::StudioSession* session_;
  QSettings* settings_;
  StudioDocks* docks_;
  QList<QAction*> actions_;
  QMenu* menu_ = nullptr;
};

}  // namespace rammer::studio
