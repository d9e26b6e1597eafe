#include "app/studio/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QUrl>
#include <cstdio>

#include "app/studio/editing_controller.h"
#include "app/studio/pipeline_toolbar.h"
#include "app/studio/recent_files.h"
#include "app/studio/run_target_actions.h"
#include "app/studio/headless_run.h"
#include "app/studio/measured_trace_action.h"
#include "app/studio/status_panel.h"
#include "app/studio/studio_docks.h"
#include "app/studio/studio_exports.h"
#include "app/studio/timeline_page.h"
#include "viz/models/diagnostics_model.h"
#include "viz/models/log_model.h"
#include "viz/widgets/graph_page.h"

namespace rammer::studio {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
// 1400x900, or less on a smaller screen: a first window fits where it opens.
QSize firstSize(const QScreen* screen) {
  const QSize want(1400, 900);
  return screen ? want.boundedTo(screen->availableGeometry().size() * 0.95) : want;
}

QString stateKey() { return QStringLiteral("mainWindow/stateV%1").arg(MainWindow::kLayoutVersion); }
const QString kPolicyKey = QStringLiteral("session/policy");
const QString kDeviceKey = QStringLiteral("session/device");
const QString kOpenDirKey = QStringLiteral("open/directory");

// The first local .onnx file a drag carries, or empty.
QString draggedModel(const QMimeData* data) {
  for (const QUrl& url : data->urls())
    if (url.isLocalFile() && url.toLocalFile().endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive))
      return url.toLocalFile();
  return {};
}

}  // namespace

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent),
      options_(std::move(options)),
      settings_(options_.settingsFile.isEmpty() ? std::make_unique<QSettings>()
                                                : std::make_unique<QSettings>(options_.settingsFile, QSettings::IniFormat)),
      session_(new viz::StudioSession(this)) {
  setWindowTitle(QStringLiteral("Rammer Studio"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
  // Every panel is a dock; the central area is an empty, invisible spacer.
  auto* centre = new QWidget(this);
  centre->setMaximumSize(0, 0);
  setCentralWidget(centre);
  centre->hide();

  recent_ = new RecentFiles(settings_.get(), this);
  status_ = new StatusPanel(this);
  statusBar()->addWidget(status_, 1);

  // Remembered choices, unless the command line overrides them later.
  session_->setPolicy(settings_->value(kPolicyKey, viz::StudioSession::defaultPolicy()).toString());
  session_->setDevice(settings_->value(kDeviceKey, QString::fromLatin1(viz::StudioSession::kDefaultDevice)).toString());

  docks_ = new StudioDocks(this, session_);
  exports_ = new StudioExports(this, session_, settings_.get(), docks_);
  connect(docks_, &StudioDocks::message, status_, &StatusPanel::setMessage);
  connect(exports_, &StudioExports::message, status_, &StatusPanel::setMessage);
  runTargets_ = new RunTargetActions(session_, settings_.get(), this);
  createActions();
  createToolBar();
  createMenus();
  docks_->resetLayout();
  connectSession();
  toolbar_->sync();
  updateActions();
  editing_ = new EditingController(this);  // undo stack, Edit menu, Compare window
  restoreLayout();
  if (options_.quitAfterLoad || options_.screenshot) headless_ = new HeadlessRun(this, options_.screenshot);
  probeCapability();
  status_->setMessage(tr("Open an ONNX model (Ctrl+O), drop one here, or pick a recent file."));
}

MainWindow::~MainWindow() {
  // QWidget's destructor deletes the children after this part of the object
  // is gone; the session's last signals must not reach it.
  session_->disconnect(this);
  recent_->disconnect(this);
  delete probe_;  // joins the probe; its result must not reach this window
  // The session waits for its workers in its destructor; cancel first so
  // the ones that poll stop early.
  session_->cancel();
}

// ---------------------------------------------------------------- building

void MainWindow::createActions() {
  auto make = [this](const QString& name, const QString& text, const QKeySequence& key = {}) {
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    if (!key.isEmpty()) a->setShortcut(key);
    actions_.insert(name, a);
    return a;
  };
  QAction* open = make(QStringLiteral("open"), tr("&Open…"), QKeySequence::Open);
  open->setToolTip(tr("Open an ONNX model (Ctrl+O)"));
  connect(open, &QAction::triggered, this, &MainWindow::chooseModel);
  QAction* quit = make(QStringLiteral("quit"), tr("&Quit"), QKeySequence(Qt::CTRL | Qt::Key_Q));
  connect(quit, &QAction::triggered, this, &QWidget::close);

  QAction* reschedule = make(QStringLiteral("reschedule"), tr("Re-&schedule"), QKeySequence(Qt::Key_F5));
  reschedule->setToolTip(tr("Schedule, validate and simulate again with the current settings (F5)"));
  connect(reschedule, &QAction::triggered, session_, &viz::StudioSession::reschedule);
  QAction* run = make(QStringLiteral("compileRun"), tr("Compile && &Run"), QKeySequence(Qt::CTRL | Qt::Key_R));
  run->setToolTip(tr("Generate the kernels and run them where Run > Run On says: the GPU, the CPU emulator or "
                     "the generated code on the CPU (Ctrl+R)"));
  connect(run, &QAction::triggered, session_, &viz::StudioSession::compileAndRun);
  QAction* nvrtc = make(QStringLiteral("compileNvrtc"), tr("Compile with &NVRTC"));
  nvrtc->setToolTip(tr("Compile the plan's CUDA for the device without running it (no GPU needed): the registers, "
                       "spills and blocks per SM ptxas gives each program, in the Log and the Inspector"));
  connect(nvrtc, &QAction::triggered, session_, &viz::StudioSession::compileWithNvrtc);
  QAction* measured = (new MeasuredTraceAction(session_, settings_.get(), kOpenDirKey, this))->action();
  actions_.insert(measured->objectName(), measured);
  for (QAction* a : runTargets_->actions()) actions_.insert(a->objectName(), a);
  QAction* cancel = make(QStringLiteral("cancel"), tr("&Cancel"));
  cancel->setToolTip(tr("Stop the running job; nothing of it is applied"));
  connect(cancel, &QAction::triggered, session_, &viz::StudioSession::cancel);

  QAction* exportMenu = make(QStringLiteral("export"), tr("&Export…"), QKeySequence(Qt::CTRL | Qt::Key_E));
  connect(exportMenu, &QAction::triggered, this, [this] { exports_->menu()->popup(QCursor::pos()); });
  for (QAction* a : exports_->actions()) actions_.insert(a->objectName(), a);

  QAction* find = make(QStringLiteral("findInGraph"), tr("&Find in Graph"), QKeySequence::Find);
  connect(find, &QAction::triggered, this, [this] {
    docks_->raise(tr("Graph"));
    docks_->graph()->focusSearch();
  });
  connect(make(QStringLiteral("resetLayout"), tr("&Reset Layout")), &QAction::triggered, docks_,
          &StudioDocks::resetLayout);
  connect(make(QStringLiteral("about"), tr("&About Rammer Studio")), &QAction::triggered, this, [this] {
    QMessageBox::about(this, tr("About Rammer Studio"),
                       tr("<b>Rammer Studio %1</b><p>Compiles ONNX models the Rammer way (rTasks on vEUs, scheduled "
                          "at compile time), shows the graph and the vEU timeline, and runs the generated kernels.")
                           .arg(QStringLiteral(RAMMER_VERSION)));
  });
  // Every shortcut works wherever the focus is in the window.
  for (QAction* a : std::as_const(actions_)) addAction(a);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(action(QStringLiteral("open")));
  file->addMenu(recent_->createMenu(tr("Open &Recent"), this));
  file->addAction(action(QStringLiteral("openMeasured")));
  connect(recent_, &RecentFiles::openRequested, this, &MainWindow::openModel);
  file->addSeparator();
  file->addMenu(exports_->menu());
  file->addAction(action(QStringLiteral("export")));
  file->addSeparator();
  file->addAction(action(QStringLiteral("quit")));

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(action(QStringLiteral("reschedule")));
  run->addAction(action(QStringLiteral("compileRun")));
  run->addAction(action(QStringLiteral("compileNvrtc")));
  QMenu* runOn = run->addMenu(tr("Run &On"));
  runOn->addActions(runTargets_->actions());
  run->addAction(action(QStringLiteral("cancel")));

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : docks_->docks()) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(action(QStringLiteral("findInGraph")));
  view->addAction(action(QStringLiteral("resetLayout")));

  menuBar()->addMenu(tr("&Help"))->addAction(action(QStringLiteral("about")));
}

void MainWindow::createToolBar() {
  toolbar_ = new PipelineToolBar(session_, action(QStringLiteral("open")),
                                 {action(QStringLiteral("reschedule")), action(QStringLiteral("compileRun")),
                                  action(QStringLiteral("cancel"))},
                                 this);
  addToolBar(toolbar_);
  // Through the undo stack (Ctrl+Z restores the previous policy).
  connect(toolbar_, &PipelineToolBar::policyChosen, this, [this](const QString& p) { editing_->setPolicy(p); });
}

void MainWindow::resetLayout() { docks_->resetLayout(); }

void MainWindow::restoreLayout() {
  const QByteArray geometry = settings_->value(kGeometryKey).toByteArray();
  if (geometry.isEmpty() || !restoreGeometry(geometry)) resize(firstSize(screen()));
  const QByteArray state = settings_->value(stateKey()).toByteArray();
  if (!state.isEmpty() && !restoreState(state, kLayoutVersion)) resetLayout();
}

void MainWindow::saveLayout() {
  settings_->setValue(kGeometryKey, saveGeometry());
  settings_->setValue(stateKey(), saveState(kLayoutVersion));
  settings_->sync();
}

void MainWindow::probeCapability() {
  if (options_.capability) {
    session_->setCapability(options_.capability);
    status_->setCapability(viz::describeCapability(*options_.capability, std::nullopt));
    return;
  }
  // cuInit can take a moment on a real GPU: never on the UI thread.
  probe_ = new viz::PipelineJob(this);
  probe_->start<viz::CapabilityReport>(
      tr("Probing the machine"), [](const pipeline::Control&) { return viz::probeCapability(); },
      [this](viz::CapabilityReport& report) {
        session_->setCapability(report.cuda);
        status_->setCapability(report);
        session_->log()->info(tr("Machine: %1 (%2)").arg(report.text, QString::fromStdString(report.cuda.message)));
      });
}

// ---------------------------------------------------------------- session

void MainWindow::connectSession() {
  connect(session_, &viz::StudioSession::modelLoaded, this, &MainWindow::onModelLoaded);
  connect(session_, &viz::StudioSession::planChanged, this, &MainWindow::onPlanChanged);
  connect(session_, &viz::StudioSession::measuredTraceChanged, this, &MainWindow::onMeasuredChanged);
  connect(session_, &viz::StudioSession::diagnosticsChanged, this, &MainWindow::onDiagnosticsChanged);
  connect(session_, &viz::StudioSession::settingsChanged, this, [this] {
    toolbar_->sync();
    settings_->setValue(kPolicyKey, session_->policy());
    settings_->setValue(kDeviceKey, session_->device());
    updateTitle();
  });
  connect(session_, &viz::StudioSession::busyChanged, this, [this](bool busy) {
    status_->setBusy(busy, session_->busyWhat());
    updateActions();
  });
  connect(session_, &viz::StudioSession::progress, status_, &StatusPanel::setProgress);
  connect(session_, &viz::StudioSession::cancelled, this,
          [this] { status_->setMessage(tr("Cancelled; nothing of it was applied.")); });
  connect(session_, &viz::StudioSession::loadFailed, this,
          [this](const QString& message) { status_->setMessage(tr("Could not open the model: %1").arg(message)); });
  connect(session_, &viz::StudioSession::exportFinished, this, [this](bool ok, const QString& message) {
    status_->setMessage(ok ? message : tr("Export failed: %1").arg(message));
  });
  connect(session_, &viz::StudioSession::jobFinished, this, &MainWindow::onJobFinished);
}

quint64 MainWindow::openModel(const QString& path) {
  return loadJob_ = session_->openModel(path, toolbar_->batch());
}

void MainWindow::applyCommandLine(const StudioCommandLine& commandLine) {
  if (!commandLine.policy.isEmpty()) session_->setPolicy(commandLine.policy);
  if (!commandLine.device.isEmpty()) session_->setDevice(commandLine.device);
  toolbar_->setBatch(commandLine.batch);
  if (!commandLine.model.isEmpty()) openModel(commandLine.model);
  pendingMeasured_ = commandLine.measured;  // parseCommandLine refuses it without a MODEL
}

void MainWindow::onModelLoaded() {
  const QString path = session_->modelPath();
  recent_->add(path);
  settings_->setValue(kOpenDirKey, QFileInfo(path).absolutePath());
  docks_->showModel();
  toolbar_->sync();
  updateTitle();
  updateActions();
}

void MainWindow::onPlanChanged() {
  docks_->showPlan();
  toolbar_->sync();
  updateTitle();
  updateActions();
  if (auto trace = session_->predictedTrace())
    status_->setMessage(tr("%1 on %2: predicted %3 us, SM efficiency %4%")
                            .arg(session_->policy(), session_->device())
                            .arg(trace->totalUs, 0, 'f', 1)
                            .arg(100 * trace->smEfficiency, 0, 'f', 1));
}

void MainWindow::onMeasuredChanged() {
  // An emulation's wall-clock times dwarf the prediction: give it its own
  // axis. A GPU measurement is compared with the prediction rTask by rTask.
  const bool onCpu = session_->runBackend() == viz::RunBackend::Emulator || session_->runBackend() == viz::RunBackend::Host;
  docks_->timeline()->setDisplay(onCpu ? TimelinePage::Display::Run : TimelinePage::Display::Compare);
  docks_->timeline()->setMeasured(session_->measuredTrace());
  updateActions();
  if (auto trace = session_->measuredTrace()) {
    status_->setMessage(tr("%1: %2 us").arg(session_->runLabel()).arg(trace->totalUs, 0, 'f', 1));
    docks_->dock(tr("Metrics"))->raise();
  }
}

void MainWindow::onDiagnosticsChanged() {
  // Problems must not go unseen behind another tab.
  if (session_->diagnosticsModel()->count(ir::Severity::Error) > 0) docks_->raise(tr("Diagnostics"));
}

void MainWindow::onJobFinished(quint64 job, bool ok) {
  updateActions();
  if (job != loadJob_) return;
  if (auto m = qExchange(pendingMeasured_, {}); ok && !m.isEmpty() && (loadJob_ = session_->openMeasuredTrace(m)))
    return;  // --measured: the trace's job is waited for instead (0: refused, a failure)
  if (headless_) headless_->loadFinished(ok && job == loadJob_);
}

void MainWindow::updateActions() {
  const bool busy = session_->isBusy();
  const bool model = session_->hasModel();
  action(QStringLiteral("reschedule"))->setEnabled(model);
  action(QStringLiteral("compileRun"))->setEnabled(model);
  action(QStringLiteral("compileNvrtc"))->setEnabled(model && session_->plan() != nullptr && !busy);
  action(QStringLiteral("openMeasured"))->setEnabled(model && session_->plan() != nullptr && !busy);
  action(QStringLiteral("cancel"))->setEnabled(busy);
  exports_->updateActions();
}

void MainWindow::updateTitle() {
  if (!session_->hasModel()) {
    setWindowTitle(QStringLiteral("Rammer Studio"));
    return;
  }
  setWindowTitle(QStringLiteral("%1 \u2014 %2 on %3 \u2014 Rammer Studio")
                     .arg(QFileInfo(session_->modelPath()).fileName(), session_->policy(), session_->device()));
}

// ---------------------------------------------------------------- files

void MainWindow::chooseModel() {
  const QString dir = settings_->value(kOpenDirKey, QDir::currentPath()).toString();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), dir, tr("ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (draggedModel(event->mimeData()).isEmpty()) event->ignore();
  else event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QString path = draggedModel(event->mimeData());
  if (path.isEmpty()) return event->ignore();
  event->acceptProposedAction();
  openModel(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveLayout();
  session_->cancel();
  event->accept();
}

// ---------------------------------------------------------------- export

quint64 MainWindow::exportTo(viz::ExportKind kind, const QString& path) { return exports_->exportTo(kind, path); }
QString MainWindow::exportGraphImage(const QString& path) { return exports_->exportGraphImage(path); }
QString MainWindow::exportTimelineImage(const QString& path) { return exports_->exportTimelineImage(path); }

// ---------------------------------------------------------------- lookup

QList<QDockWidget*> MainWindow::docks() const { return docks_->docks(); }
QDockWidget* MainWindow::dock(const QString& title) const { return docks_->dock(title); }
QAction* MainWindow::action(const QString& name) const { return actions_.value(name); }
viz::GraphView* MainWindow::graphView() const { return docks_->graph()->view(); }
TimelinePage* MainWindow::timelinePage() const { return docks_->timeline(); }
viz::InspectorView* MainWindow::inspector() const { return docks_->inspector(); }
viz::CodeView* MainWindow::codeView() const { return docks_->code(); }
MetricsPage* MainWindow::metricsPage() const { return docks_->metrics(); }
DiagnosticsPage* MainWindow::diagnosticsPage() const { return docks_->diagnostics(); }
viz::KernelsView* MainWindow::kernelsView() const { return docks_->kernels(); }
QComboBox* MainWindow::policyPicker() const { return toolbar_->policyPicker(); }
QComboBox* MainWindow::devicePicker() const { return toolbar_->devicePicker(); }

}  // namespace rammer::studio
