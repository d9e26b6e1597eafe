#pragma once
// File > Open Measured Trace (Ctrl+Shift+O): asks for a measured GPU trace
// of the open model (the lease recorder's, e.g. tests/data/gpu_traces; xz
// or JSON) and hands it to the session, which lays it beside the plan's
// prediction (StudioSession::openMeasuredTrace). Enabled by MainWindow
// while there is a plan and no job.
#include <QObject>

class QAction;
class QSettings;
class QWidget;

namespace rammer::viz {
class StudioSession;
}

namespace rammer::studio {

class MeasuredTraceAction : public QObject {
  Q_OBJECT

 public:
  // The dialog starts in the folder under `dirKey` in `settings`.
  MeasuredTraceAction(viz::StudioSession* session, QSettings* settings, QString dirKey, QWidget* window);
  QAction* action() const { return action_; }

 private:
  QAction* action_;
};

}  // namespace rammer::studio
