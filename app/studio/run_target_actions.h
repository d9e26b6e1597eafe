#pragma once
// Run > Run On: where Compile & Run runs (the GPU, else the CPU emulator;
// the CPU emulator; the generated code on the CPU), three checkable actions
// of which one is on; then whether the GPU and the generated code launch
// the plan's programs as one CUDA graph (a checkable action of its own).
// The choices are the session's and are remembered in QSettings
// ("run/target", "run/launch") between sessions.
#include <QList>
#include <QObject>

class QAction;
class QSettings;

namespace rammer::viz {
class StudioSession;
}

namespace rammer::studio {

class RunTargetActions : public QObject {
  Q_OBJECT

 public:
  // Restores the remembered target into the session.
  RunTargetActions(viz::StudioSession* session, QSettings* settings, QObject* parent);

  // runTargetAuto, runTargetEmulator, runTargetHost, a separator, runLaunchGraph.
  const QList<QAction*>& actions() const { return actions_; }

 private:
  QList<QAction*> actions_;
};

}  // namespace rammer::studio
