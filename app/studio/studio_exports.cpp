#include "app/studio/studio_exports.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

#include "app/studio/studio_docks.h"
#include "app/studio/timeline_page.h"
#include "app/studio/widget_export.h"
#include "viz/models/log_model.h"
#include "viz/models/studio_session.h"
#include "viz/widgets/graph_page.h"
#include "viz/widgets/graph_view.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::studio {

namespace {
const QString kExportDirKey = QStringLiteral("export/directory");
}

StudioExports::StudioExports(QWidget* window, viz::StudioSession* session, QSettings* settings, StudioDocks* docks)
    : QObject(window), window_(window), session_(session), settings_(settings), docks_(docks) {
  menu_ = new QMenu(tr("&Export"), window);
  auto worker = [this](const QString& name, const QString& text, viz::ExportKind kind) {
    connect(add(name, text), &QAction::triggered, this, [this, kind] { choose(kind); });
  };
  auto image = [this](const QString& name, const QString& text, bool graph, const QString& suffix) {
    connect(add(name, text), &QAction::triggered, this, [this, graph, suffix] { chooseImage(graph, suffix); });
  };
  worker(QStringLiteral("exportCudaProject"), tr("CUDA project (.cu)…"), viz::ExportKind::CudaProject);
  worker(QStringLiteral("exportHipProject"), tr("HIP project (.hip)…"), viz::ExportKind::HipProject);
  menu_->addSeparator();
  worker(QStringLiteral("exportSchedule"), tr("Schedule (JSON)…"), viz::ExportKind::ScheduleJson);
  worker(QStringLiteral("exportPredictedTrace"), tr("Predicted trace (Chrome JSON)…"), viz::ExportKind::PredictedTrace);
  worker(QStringLiteral("exportMeasuredTrace"), tr("Run trace (Chrome JSON)…"), viz::ExportKind::MeasuredTrace);
  menu_->addSeparator();
  worker(QStringLiteral("exportGraphDot"), tr("Graph as DOT…"), viz::ExportKind::GraphDot);
  image(QStringLiteral("exportGraphSvg"), tr("Graph as SVG…"), true, QStringLiteral("svg"));
  image(QStringLiteral("exportGraphPng"), tr("Graph as PNG…"), true, QStringLiteral("png"));
  image(QStringLiteral("exportTimelinePng"), tr("Timeline as PNG…"), false, QStringLiteral("png"));
}

QAction* StudioExports::add(const QString& name, const QString& text) {
  QAction* a = menu_->addAction(text);
  a->setObjectName(name);
  actions_ << a;
  return a;
}

void StudioExports::updateActions() {
  const bool idle = !session_->isBusy();
  const bool model = session_->hasModel();
  const bool plan = session_->plan() != nullptr;
  const bool predicted = session_->predictedTrace() != nullptr;
  for (QAction* a : std::as_const(actions_)) {
    const QString n = a->objectName();
    bool on = idle && plan;  // the projects and the schedule
    if (n == QStringLiteral("exportPredictedTrace")) on = idle && predicted;
    if (n == QStringLiteral("exportMeasuredTrace")) on = idle && session_->measuredTrace() != nullptr;
    if (n == QStringLiteral("exportGraphDot")) on = idle && model;
    // Images are drawn on the UI thread from what is on screen.
    if (n == QStringLiteral("exportGraphSvg") || n == QStringLiteral("exportGraphPng")) on = model;
    if (n == QStringLiteral("exportTimelinePng")) on = predicted;
    a->setEnabled(on);
  }
}

QString StudioExports::directory() const {
  return settings_->value(kExportDirKey, QFileInfo(session_->modelPath()).absolutePath()).toString();
}

void StudioExports::rememberDirectory(const QString& path) {
  settings_->setValue(kExportDirKey, QFileInfo(path).absolutePath());
}

QString StudioExports::defaultName(const QString& suffix) const {
  const QString base = QFileInfo(session_->modelPath()).completeBaseName();
  return QDir(directory()).filePath(QStringLiteral("%1-%2-%3%4").arg(base, session_->policy(), session_->device(), suffix));
}

quint64 StudioExports::exportTo(viz::ExportKind kind, const QString& path) { return session_->exportTo(kind, path); }

void StudioExports::choose(viz::ExportKind kind) {
  QString path;
  switch (kind) {
    case viz::ExportKind::CudaProject:
    case viz::ExportKind::HipProject: {
      const bool hip = kind == viz::ExportKind::HipProject;
      // The project gets a folder of its own inside the chosen one.
      const QString parent = QFileDialog::getExistingDirectory(
          window_, hip ? tr("Export HIP project into") : tr("Export CUDA project into"), directory());
      if (parent.isEmpty()) return;
      path = QDir(parent).filePath(
          QFileInfo(defaultName(hip ? QStringLiteral("-hip") : QStringLiteral("-cuda"))).fileName());
      settings_->setValue(kExportDirKey, parent);
      break;
    }
    case viz::ExportKind::ScheduleJson:
      path = QFileDialog::getSaveFileName(window_, tr("Export schedule"), defaultName(QStringLiteral(".schedule.json")),
                                          tr("JSON (*.json)"));
      break;
    case viz::ExportKind::PredictedTrace:
    case viz::ExportKind::MeasuredTrace:
      path = QFileDialog::getSaveFileName(
          window_, tr("Export Chrome trace"),
          defaultName(kind == viz::ExportKind::PredictedTrace ? QStringLiteral(".predicted.json")
                                                              : QStringLiteral(".run.json")),
          tr("Chrome trace JSON (*.json)"));
      break;
    case viz::ExportKind::GraphDot:
      path = QFileDialog::getSaveFileName(window_, tr("Export graph"), defaultName(QStringLiteral(".dot")),
                                          tr("Graphviz DOT (*.dot *.gv)"));
      break;
  }
  if (path.isEmpty()) return;
  if (kind != viz::ExportKind::CudaProject && kind != viz::ExportKind::HipProject) rememberDirectory(path);
  exportTo(kind, path);
}

void StudioExports::chooseImage(bool graph, const QString& suffix) {
  const QString path = QFileDialog::getSaveFileName(
      window_, graph ? tr("Export graph") : tr("Export timeline"),
      defaultName((graph ? QStringLiteral(".graph.") : QStringLiteral(".timeline.")) + suffix),
      suffix == QStringLiteral("svg") ? tr("SVG (*.svg)") : tr("PNG (*.png)"));
  if (path.isEmpty()) return;
  rememberDirectory(path);
  const QString error = graph ? exportGraphImage(path) : exportTimelineImage(path);
  emit message(error.isEmpty() ? tr("wrote %1").arg(path) : tr("Export failed: %1").arg(error));
  if (!error.isEmpty())
    session_->log()->error(tr("Export failed: %1").arg(error));
  else
    session_->log()->info(tr("wrote %1").arg(path));
}

QString StudioExports::exportGraphImage(const QString& path) {
  viz::GraphView* view = docks_->graph()->view();
  if (view->isLayoutPending()) return tr("the graph layout is still running; try again when it is drawn");
  if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) return writeSceneSvg(view->scene(), path);
  return writeScenePng(view->scene(), path);
}

QString StudioExports::exportTimelineImage(const QString& path) {
  return writeWidgetPng(docks_->timeline()->view(), path);
}

}  // namespace rammer::studio
