#include "app/studio/measured_trace_action.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QSettings>
#include <QWidget>

#include "viz/models/studio_session.h"

namespace rammer::studio {

MeasuredTraceAction::MeasuredTraceAction(viz::StudioSession* session, QSettings* settings, QString dirKey,
                                         QWidget* window)
    : QObject(window), action_(new QAction(tr("Open &Measured Trace…"), window)) {
  action_->setObjectName(QStringLiteral("openMeasured"));
  action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  action_->setToolTip(tr("Open a measured GPU trace of this model (tests/data/gpu_traces: xz or JSON) beside the "
                         "plan's prediction, operators matched by name (Ctrl+Shift+O)"));
  connect(action_, &QAction::triggered, this, [session, settings, dirKey, window] {
    const QString dir = settings->value(dirKey, QDir::currentPath()).toString();
    const QString path = QFileDialog::getOpenFileName(
        window, tr("Open measured trace"), dir, tr("Measured traces (*.trace.json.xz *.json.xz *.json);;All files (*)"));
    if (!path.isEmpty()) session->openMeasuredTrace(path);
  });
}

}  // namespace rammer::studio
