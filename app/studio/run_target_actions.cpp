#include "app/studio/run_target_actions.h"

#include <QAction>
#include <QActionGroup>
#include <QSettings>

#include "viz/models/studio_session.h"

namespace rammer::studio {

namespace {
const QString kRunTargetKey = QStringLiteral("run/target");
const QString kLaunchKey = QStringLiteral("run/launch");
}

RunTargetActions::RunTargetActions(viz::StudioSession* session, QSettings* settings, QObject* parent)
    : QObject(parent) {
  const int remembered = settings->value(kRunTargetKey, 0).toInt();
  session->setRunTarget(remembered == 1   ? viz::RunTarget::Emulator
                        : remembered == 2 ? viz::RunTarget::Host
                                          : viz::RunTarget::Auto);
  auto* group = new QActionGroup(this);
  auto add = [&](const char* name, const QString& text, const QString& tip, viz::RunTarget t) {
    auto* a = new QAction(text, this);
    a->setObjectName(QString::fromLatin1(name));
    a->setCheckable(true);
    a->setToolTip(tip);
    a->setData(static_cast<int>(t));
    a->setChecked(session->runTarget() == t);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [session, settings, t] {
      session->setRunTarget(t);
      settings->setValue(kRunTargetKey, static_cast<int>(t));
    });
    actions_ << a;
  };
  add("runTargetAuto", tr("&GPU, else CPU Emulator"),
      tr("Run on the GPU when there is one, else emulate the plan on the CPU"), viz::RunTarget::Auto);
  add("runTargetEmulator", tr("CPU &Emulator"), tr("Run the plan rTask by rTask on the CPU, barriers enforced"),
      viz::RunTarget::Emulator);
  add("runTargetHost", tr("Generated Code on &CPU"),
      tr("Build the generated kernels with the system C++ compiler and run them on the CPU: the code itself, "
         "not a GPU measurement"),
      viz::RunTarget::Host);

  auto* separator = new QAction(this);
  separator->setSeparator(true);
  separator->setObjectName(QStringLiteral("runLaunchSeparator"));
  actions_ << separator;
  auto* graph = new QAction(tr("Launch as One CUDA &Graph"), this);
  graph->setObjectName(QStringLiteral("runLaunchGraph"));
  graph->setCheckable(true);
  graph->setToolTip(tr("Capture one run's launches into a CUDA graph and replay it for the timed runs (GPU and "
                       "generated code on the CPU): a plan of many programs, RammerBase's kernel per operator, then "
                       "pays the launch cost torch.compile's reduce-overhead mode pays"));
  session->setLaunchMode(settings->value(kLaunchKey, false).toBool() ? runtime::LaunchMode::Graph
                                                                     : runtime::LaunchMode::Stream);
  graph->setChecked(session->launchMode() == runtime::LaunchMode::Graph);
  connect(graph, &QAction::toggled, this, [session, settings](bool on) {
    session->setLaunchMode(on ? runtime::LaunchMode::Graph : runtime::LaunchMode::Stream);
    settings->setValue(kLaunchKey, on);
  });
  actions_ << graph;
}

}  // namespace rammer::studio
