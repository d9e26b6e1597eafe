#include "app/studio/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QToolBar>
#include <QUrl>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdio>

#include "app/studio/diagnostics_page.h"
#include "app/studio/editing_controller.h"
#include "app/studio/log_page.h"
#include "app/studio/metrics_page.h"
#include "app/studio/placeholder_page.h"
#include "app/studio/recent_files.h"
#include "app/studio/status_panel.h"
#include "app/studio/timeline_page.h"
#include "app/studio/widget_export.h"
#include "viz/models/diagnostics_model.h"
#include "viz/models/log_model.h"
#include "viz/widgets/code_view.h"
#include "viz/widgets/graph_page.h"
#include "viz/widgets/graph_view.h"
#include "viz/widgets/inspector_view.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::studio {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
QString stateKey() { return QStringLiteral("mainWindow/stateV%1").arg(MainWindow::kLayoutVersion); }
const QString kPolicyKey = QStringLiteral("session/policy");
const QString kDeviceKey = QStringLiteral("session/device");
const QString kRunTargetKey = QStringLiteral("run/target");
const QString kExportDirKey = QStringLiteral("export/directory");
const QString kOpenDirKey = QStringLiteral("open/directory");
const QString kDeviceFromFile = QStringLiteral("From file…");

bool isOnnx(const QUrl& url) {
  return url.isLocalFile() && url.toLocalFile().endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive);
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
  session_->setPolicy(settings_->value(kPolicyKey, QString::fromLatin1(viz::StudioSession::kDefaultPolicy)).toString());
  session_->setDevice(settings_->value(kDeviceKey, QString::fromLatin1(viz::StudioSession::kDefaultDevice)).toString());
  const int target = settings_->value(kRunTargetKey, 0).toInt();
  session_->setRunTarget(target == 1 ? viz::RunTarget::Emulator : target == 2 ? viz::RunTarget::Host : viz::RunTarget::Auto);

  createActions();
  for (const char* name : {"runTargetAuto", "runTargetEmulator", "runTargetHost"})
    if (QAction* a = action(QString::fromLatin1(name)); a->data().toInt() == static_cast<int>(session_->runTarget()))
      a->setChecked(true);
  createDocks();
  createToolBar();
  createMenus();
  connectSession();
  syncPickers();
  updateActions();
  new EditingController(this);  // undo stack, Edit menu, rKernels dock, Compare window
  restoreLayout();
  probeCapability();
  status_->setMessage(tr("Open an ONNX model (Ctrl+O), drop one here, or pick a recent file."));
}

MainWindow::~MainWindow() {
  // QWidget's destructor deletes the children after this part of the object
  // is gone; their last signals (a dock hiding) must not reach it (UBSan
  // caught codeVisible_ written from a dying dock).
  for (QObject* child : findChildren<QObject*>()) child->disconnect(this);
  probe_.waitForFinished();
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
  // Where Compile & Run runs: one of three, remembered between sessions.
  auto* targets = new QActionGroup(this);
  auto target = [&](const QString& name, const QString& text, const QString& tip, viz::RunTarget t) {
    QAction* a = make(name, text);
    a->setCheckable(true);
    a->setToolTip(tip);
    a->setData(static_cast<int>(t));
    targets->addAction(a);
    connect(a, &QAction::triggered, this, [this, t] {
      session_->setRunTarget(t);
      settings_->setValue(kRunTargetKey, static_cast<int>(t));
    });
  };
  target(QStringLiteral("runTargetAuto"), tr("&GPU, else CPU Emulator"),
         tr("Run on the GPU when there is one, else emulate the plan on the CPU"), viz::RunTarget::Auto);
  target(QStringLiteral("runTargetEmulator"), tr("CPU &Emulator"),
         tr("Run the plan rTask by rTask with the rKernels' CPU tiles"), viz::RunTarget::Emulator);
  target(QStringLiteral("runTargetHost"), tr("Generated Code on &CPU"),
         tr("Build the generated kernels with the system C++ compiler and run them on the CPU: the code itself, "
            "not a GPU measurement"),
         viz::RunTarget::Host);
  QAction* cancel = make(QStringLiteral("cancel"), tr("&Cancel"));
  cancel->setToolTip(tr("Stop the running job; nothing of it is applied"));
  connect(cancel, &QAction::triggered, session_, &viz::StudioSession::cancel);

  QAction* exportMenu = make(QStringLiteral("export"), tr("&Export…"), QKeySequence(Qt::CTRL | Qt::Key_E));
  connect(exportMenu, &QAction::triggered, this, [this] { exportMenu_->popup(QCursor::pos()); });

  auto exporter = [&](const QString& name, const QString& text, viz::ExportKind kind) {
    connect(make(name, text), &QAction::triggered, this, [this, kind] { chooseExport(kind); });
  };
  exporter(QStringLiteral("exportCudaProject"), tr("CUDA project (.cu)…"), viz::ExportKind::CudaProject);
  exporter(QStringLiteral("exportHipProject"), tr("HIP project (.hip)…"), viz::ExportKind::HipProject);
  exporter(QStringLiteral("exportSchedule"), tr("Schedule (JSON)…"), viz::ExportKind::ScheduleJson);
  exporter(QStringLiteral("exportPredictedTrace"), tr("Predicted trace (Chrome JSON)…"),
           viz::ExportKind::PredictedTrace);
  exporter(QStringLiteral("exportMeasuredTrace"), tr("Run trace (Chrome JSON)…"), viz::ExportKind::MeasuredTrace);
  exporter(QStringLiteral("exportGraphDot"), tr("Graph as DOT…"), viz::ExportKind::GraphDot);
  connect(make(QStringLiteral("exportGraphSvg"), tr("Graph as SVG…")), &QAction::triggered, this,
          [this] { chooseImageExport(true, QStringLiteral("svg")); });
  connect(make(QStringLiteral("exportGraphPng"), tr("Graph as PNG…")), &QAction::triggered, this,
          [this] { chooseImageExport(true, QStringLiteral("png")); });
  connect(make(QStringLiteral("exportTimelinePng"), tr("Timeline as PNG…")), &QAction::triggered, this,
          [this] { chooseImageExport(false, QStringLiteral("png")); });

  QAction* find = make(QStringLiteral("findInGraph"), tr("&Find in Graph"), QKeySequence::Find);
  connect(find, &QAction::triggered, this, [this] {
    dock(QStringLiteral("Graph"))->show();
    dock(QStringLiteral("Graph"))->raise();
    graph_->focusSearch();
  });
  connect(make(QStringLiteral("resetLayout"), tr("&Reset Layout")), &QAction::triggered, this,
          &MainWindow::resetLayout);
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
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  connect(recent_, &RecentFiles::changed, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  file->addSeparator();
  exportMenu_ = file->addMenu(tr("&Export"));
  for (const char* name : std::initializer_list<const char*>{"exportCudaProject", "exportHipProject", nullptr, "exportSchedule", "exportPredictedTrace",
                           "exportMeasuredTrace", nullptr, "exportGraphDot", "exportGraphSvg", "exportGraphPng",
                           "exportTimelinePng"}) {
    if (!name)
      exportMenu_->addSeparator();
    else
      exportMenu_->addAction(action(QString::fromLatin1(name)));
  }
  file->addAction(action(QStringLiteral("export")));
  file->addSeparator();
  file->addAction(action(QStringLiteral("quit")));

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(action(QStringLiteral("reschedule")));
  run->addAction(action(QStringLiteral("compileRun")));
  QMenu* runOn = run->addMenu(tr("Run &On"));
  for (const char* name : {"runTargetAuto", "runTargetEmulator", "runTargetHost"})
    runOn->addAction(action(QString::fromLatin1(name)));
  run->addAction(action(QStringLiteral("cancel")));

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : std::as_const(docks_)) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(action(QStringLiteral("findInGraph")));
  view->addAction(action(QStringLiteral("resetLayout")));

  menuBar()->addMenu(tr("&Help"))->addAction(action(QStringLiteral("about")));
}

void MainWindow::createToolBar() {
  QToolBar* bar = addToolBar(tr("Pipeline"));
  bar->setObjectName(QStringLiteral("PipelineToolBar"));
  bar->addAction(action(QStringLiteral("open")));
  bar->addSeparator();

  bar->addWidget(new QLabel(tr(" Policy "), bar));
  policyBox_ = new QComboBox(bar);
  policyBox_->setObjectName(QStringLiteral("policyPicker"));
  policyBox_->addItems(viz::StudioSession::policyNames());
  policyBox_->setToolTip(tr("Scheduling policy: sequential (RammerBase), wavefront (Rammer), greedy"));
  bar->addWidget(policyBox_);
  connect(policyBox_, &QComboBox::activated, this, [this](int) {
    if (syncing_) return;
    // Through the undo stack (Ctrl+Z restores the previous policy).
    if (auto* editing = findChild<EditingController*>())
      editing->setPolicy(policyBox_->currentText());
    else
      session_->setPolicy(policyBox_->currentText());
  });

  bar->addWidget(new QLabel(tr(" Device "), bar));
  deviceBox_ = new QComboBox(bar);
  deviceBox_->setObjectName(QStringLiteral("devicePicker"));
  deviceBox_->addItems(viz::StudioSession::deviceIds());
  deviceBox_->addItem(kDeviceFromFile);
  deviceBox_->setToolTip(tr("The vDevice to schedule for (a preset, or a device JSON file)"));
  bar->addWidget(deviceBox_);
  connect(deviceBox_, &QComboBox::activated, this, [this](int) {
    if (syncing_) return;
    if (deviceBox_->currentText() == kDeviceFromFile) {
      chooseDeviceFile();
      return;
    }
    session_->setDevice(deviceBox_->currentText());
  });

  bar->addWidget(new QLabel(tr(" Batch "), bar));
  batchBox_ = new QSpinBox(bar);
  batchBox_->setObjectName(QStringLiteral("batchPicker"));
  batchBox_->setRange(1, 4096);
  batchBox_->setToolTip(tr("Symbolic batch dimensions are bound to this size (re-imports the model)"));
  bar->addWidget(batchBox_);
  connect(batchBox_, &QSpinBox::editingFinished, this, [this] {
    if (session_->hasModel() && batchBox_->value() != session_->batch())
      session_->openModel(session_->modelPath(), batchBox_->value());
  });

  bar->addSeparator();
  bar->addAction(action(QStringLiteral("reschedule")));
  bar->addAction(action(QStringLiteral("compileRun")));
  bar->addAction(action(QStringLiteral("cancel")));
}

QDockWidget* MainWindow::addDock(const QString& title, QWidget* page, const QString& tip) {
  auto* d = new QDockWidget(title, this);
  d->setObjectName(title + QStringLiteral("Dock"));  // the key saveState uses
  d->setWidget(page);
  d->setToolTip(tip);
  d->toggleViewAction()->setToolTip(tr("Show or hide the %1 panel").arg(title));
  docks_ << d;
  return d;
}

void MainWindow::createDocks() {
  graph_ = new viz::GraphPage(this);
  timeline_ = new TimelinePage(this);
  inspector_ = new viz::InspectorView(this);
  metrics_ = new MetricsPage(session_->metricsModel(), this);
  diagnostics_ = new DiagnosticsPage(session_->diagnosticsModel(), this);
  log_ = new LogPage(session_->log(), this);

  addDock(tr("Graph"), graph_, tr("The optimized data-flow graph"));
  addDock(tr("Timeline"), timeline_, tr("rTasks on vEUs, predicted and run"));
  addDock(tr("rKernels"),
          new PlaceholderPage(tr("rKernels: the candidate implementations of the selected operator, to pick "
                                 "one — coming with schedule editing."),
                              this),
          tr("Candidate rKernels of the selected operator"));
  addDock(tr("Inspector"), inspector_, tr("The selected operator: attributes, shapes, parameters, rKernel"));
  addDock(tr("Metrics"), metrics_, tr("Predicted beside measured (or emulated) numbers"));
  code_ = new viz::CodeView(this);
  QDockWidget* codeDock = addDock(tr("Code"), code_, tr("The plan's generated CUDA or HIP code"));
  // Code is generated only while someone looks at it.
  connect(codeDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    codeVisible_ = visible;
    refreshCode();
  });
  addDock(tr("Diagnostics"), diagnostics_, tr("Errors, warnings and notes of every stage"));
  addDock(tr("Log"), log_, tr("What each stage did and how long it took"));
  resetLayout();

  connect(graph_->view(), &viz::GraphView::nodeSelected, this, &MainWindow::graphSelectionChanged);
  connect(timeline_->view(), &viz::TimelineView::opsSelected, this, &MainWindow::timelineSelectionChanged);
  connect(diagnostics_, &DiagnosticsPage::nodeActivated, this, &MainWindow::findNode);
  connect(graph_->view(), &viz::GraphView::layoutFailed, this,
          [this](const QString& message) { session_->log()->error(tr("Graph layout failed: %1").arg(message)); });
}

void MainWindow::resetLayout() {
  for (QDockWidget* d : std::as_const(docks_)) {
    d->setFloating(false);
    removeDockWidget(d);
  }
  auto get = [this](const char* title) { return dock(tr(title)); };
  addDockWidget(Qt::LeftDockWidgetArea, get("Graph"));
  addDockWidget(Qt::RightDockWidgetArea, get("Inspector"));
  tabifyDockWidget(get("Inspector"), get("rKernels"));
  tabifyDockWidget(get("Inspector"), get("Code"));
  addDockWidget(Qt::BottomDockWidgetArea, get("Timeline"));
  splitDockWidget(get("Timeline"), get("Diagnostics"), Qt::Horizontal);
  tabifyDockWidget(get("Diagnostics"), get("Metrics"));
  tabifyDockWidget(get("Diagnostics"), get("Log"));
  for (QDockWidget* d : std::as_const(docks_)) {
    d->setFloating(false);
    d->show();
  }
  get("Inspector")->raise();
  get("Diagnostics")->raise();
  resizeDocks({get("Graph"), get("Inspector")}, {700, 340}, Qt::Horizontal);
  resizeDocks({get("Timeline"), get("Diagnostics")}, {760, 420}, Qt::Horizontal);
  resizeDocks({get("Graph"), get("Timeline")}, {480, 300}, Qt::Vertical);
}

void MainWindow::restoreLayout() {
  const QByteArray geometry = settings_->value(kGeometryKey).toByteArray();
  if (geometry.isEmpty() || !restoreGeometry(geometry)) resize(1400, 900);
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
  connect(&probe_, &QFutureWatcherBase::finished, this, [this] {
    const viz::CapabilityReport report = probe_.result();
    session_->setCapability(report.cuda);
    status_->setCapability(report);
    session_->log()->info(tr("Machine: %1 (%2)").arg(report.text, QString::fromStdString(report.cuda.message)));
  });
  // cuInit can take a moment on a real GPU: never on the UI thread.
  probe_.setFuture(QtConcurrent::run(&viz::probeCapability));
}

// ---------------------------------------------------------------- session

void MainWindow::connectSession() {
  connect(session_, &viz::StudioSession::modelLoaded, this, &MainWindow::onModelLoaded);
  connect(session_, &viz::StudioSession::planChanged, this, &MainWindow::onPlanChanged);
  connect(session_, &viz::StudioSession::traceChanged, this,
          [this] { timeline_->setPredicted(session_->predictedTrace()); });
  connect(session_, &viz::StudioSession::measuredTraceChanged, this, &MainWindow::onMeasuredChanged);
  connect(session_, &viz::StudioSession::diagnosticsChanged, this, &MainWindow::onDiagnosticsChanged);
  connect(session_, &viz::StudioSession::settingsChanged, this, [this] {
    syncPickers();
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
  connect(session_, &viz::StudioSession::loadFailed, this, &MainWindow::onLoadFailed);
  connect(session_, &viz::StudioSession::exportFinished, this, [this](bool ok, const QString& message) {
    status_->setMessage(ok ? message : tr("Export failed: %1").arg(message));
  });
  connect(session_, &viz::StudioSession::jobFinished, this, &MainWindow::onJobFinished);
}

quint64 MainWindow::openModel(const QString& path) {
  const quint64 job = session_->openModel(path, batchBox_->value());
  loadJob_ = job;
  return job;
}

void MainWindow::applyCommandLine(const StudioCommandLine& commandLine) {
  if (!commandLine.policy.isEmpty()) session_->setPolicy(commandLine.policy);
  if (!commandLine.device.isEmpty()) session_->setDevice(commandLine.device);
  batchBox_->setValue(static_cast<int>(std::clamp<int64_t>(commandLine.batch, 1, batchBox_->maximum())));
  if (!commandLine.model.isEmpty()) openModel(commandLine.model);
}

void MainWindow::onModelLoaded() {
  const QString path = session_->modelPath();
  recent_->add(path);
  settings_->setValue(kOpenDirKey, QFileInfo(path).absolutePath());
  inspectedNode_ = -1;
  inspector_->clear();
  opOfNode_.clear();
  graph_->view()->setGraph(session_->graph());
  syncing_ = true;
  batchBox_->setValue(static_cast<int>(session_->batch()));
  syncing_ = false;
  updateTitle();
  updateActions();
}

void MainWindow::refreshCode() {
  if (!codeVisible_ || !codeStale_) return;
  codeStale_ = false;
  code_->setPlan(session_->plan(), session_->graph());
}

void MainWindow::onPlanChanged() {
  codeStale_ = true;
  refreshCode();
  opOfNode_.clear();
  if (auto plan = session_->plan())
    for (int i = 0; i < static_cast<int>(plan->ops.size()); ++i) opOfNode_.insert(plan->ops[static_cast<size_t>(i)].node, i);
  if (inspectedNode_ >= 0) showInspector(inspectedNode_);
  syncPickers();
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
  timeline_->setDisplay(onCpu ? TimelinePage::Display::Run : TimelinePage::Display::Compare);
  timeline_->setMeasured(session_->measuredTrace());
  updateActions();
  if (auto trace = session_->measuredTrace()) {
    status_->setMessage(tr("%1: %2 us").arg(session_->runLabel()).arg(trace->totalUs, 0, 'f', 1));
    dock(tr("Metrics"))->raise();
  }
}

void MainWindow::onDiagnosticsChanged() {
  // Problems must not go unseen behind another tab.
  if (session_->diagnosticsModel()->count(ir::Severity::Error) > 0) {
    QDockWidget* d = dock(tr("Diagnostics"));
    d->show();
    d->raise();
  }
}

void MainWindow::onLoadFailed(const QString& message) {
  status_->setMessage(tr("Could not open the model: %1").arg(message));
}

void MainWindow::onJobFinished(quint64 job, bool ok) {
  updateActions();
  if (!options_.quitAfterLoad || job != loadJob_) return;
  if (ok && session_->plan() && session_->predictedTrace()) {
    const auto& plan = *session_->plan();
    std::printf("loaded %s: %zu nodes after optimization; %s on %s: %zu program(s), %zu rTasks; predicted %.1f us\n",
                qPrintable(session_->modelPath()), session_->graph()->numNodes(), plan.policy.c_str(),
                plan.device.id.c_str(), plan.programs.size(), plan.numRTasks(), session_->predictedTrace()->totalUs);
    std::fflush(stdout);
    QApplication::exit(0);
    return;
  }
  QString error = tr("loading failed");
  for (const auto& d : session_->diagnostics())
    if (d.diagnostic.severity == ir::Severity::Error) {
      error = viz::stageLabel(d.stage) + QStringLiteral(": ") + QString::fromStdString(ir::formatDiagnostic(d.diagnostic));
      break;
    }
  std::fprintf(stderr, "rammer-studio: error: %s\n", qPrintable(error));
  std::fflush(stderr);
  QApplication::exit(1);
}

void MainWindow::syncPickers() {
  syncing_ = true;
  const QString policy = session_->policy();
  if (policyBox_->findText(policy) < 0) policyBox_->addItem(policy);
  policyBox_->setCurrentText(policy);
  const QString device = session_->device();
  if (deviceBox_->findText(device) < 0) deviceBox_->insertItem(deviceBox_->count() - 1, device);
  deviceBox_->setCurrentText(device);
  syncing_ = false;
}

void MainWindow::updateActions() {
  const bool busy = session_->isBusy();
  const bool model = session_->hasModel();
  const bool plan = session_->plan() != nullptr;
  action(QStringLiteral("reschedule"))->setEnabled(model);
  action(QStringLiteral("compileRun"))->setEnabled(model);
  action(QStringLiteral("cancel"))->setEnabled(busy);
  const bool idle = !busy;
  action(QStringLiteral("exportCudaProject"))->setEnabled(idle && plan);
  action(QStringLiteral("exportHipProject"))->setEnabled(idle && plan);
  action(QStringLiteral("exportSchedule"))->setEnabled(idle && plan);
  action(QStringLiteral("exportPredictedTrace"))->setEnabled(idle && session_->predictedTrace() != nullptr);
  action(QStringLiteral("exportMeasuredTrace"))->setEnabled(idle && session_->measuredTrace() != nullptr);
  action(QStringLiteral("exportGraphDot"))->setEnabled(idle && model);
  action(QStringLiteral("exportGraphSvg"))->setEnabled(model);
  action(QStringLiteral("exportGraphPng"))->setEnabled(model);
  action(QStringLiteral("exportTimelinePng"))->setEnabled(session_->predictedTrace() != nullptr);
}

void MainWindow::updateTitle() {
  if (!session_->hasModel()) {
    setWindowTitle(QStringLiteral("Rammer Studio"));
    return;
  }
  setWindowTitle(QStringLiteral("%1 \u2014 %2 on %3 \u2014 Rammer Studio")
                     .arg(QFileInfo(session_->modelPath()).fileName(), session_->policy(), session_->device()));
}

// ---------------------------------------------------------------- selection

void MainWindow::graphSelectionChanged(const QList<int>& nodes) {
  QList<int> ops;
  for (int n : nodes)
    if (auto it = opOfNode_.constFind(n); it != opOfNode_.cend()) ops << it.value();
  timeline_->view()->selectOps(ops);
  if (!ops.isEmpty() && codeVisible_) code_->jumpToOp(ops.first());
  showInspector(nodes.isEmpty() ? -1 : nodes.first());
}

void MainWindow::timelineSelectionChanged(const QList<int>& ops) {
  auto plan = session_->plan();
  QList<int> nodes;
  if (plan)
    for (int op : ops)
      if (op >= 0 && op < static_cast<int>(plan->ops.size())) nodes << plan->ops[static_cast<size_t>(op)].node;
  graph_->view()->selectNodes(nodes);
  if (!ops.isEmpty() && codeVisible_) code_->jumpToOp(ops.first());
  showInspector(nodes.isEmpty() ? -1 : nodes.first());
}

void MainWindow::showInspector(int node) {
  inspectedNode_ = node;
  auto graph = session_->graph();
  if (!graph || node < 0 || node >= static_cast<int>(graph->numNodeSlots()) || graph->node(node).removed) {
    inspector_->clear();
    return;
  }
  inspector_->showNode(*graph, node, session_->plan().get());
}

void MainWindow::findNode(const QString& name) {
  auto graph = session_->graph();
  if (!graph) return;
  const std::string wanted = name.toStdString();
  int found = -1;
  for (size_t i = 0; i < graph->numNodeSlots() && found < 0; ++i) {
    const ir::Node& n = graph->node(static_cast<ir::NodeId>(i));
    if (!n.removed && n.name == wanted) found = static_cast<int>(i);
  }
  if (found < 0) {
    // A value name: show its producer.
    if (auto v = graph->findValue(wanted); v && graph->value(*v).producer != ir::kNone) found = graph->value(*v).producer;
  }
  if (found < 0) {
    status_->setMessage(tr("'%1' is not in the optimized graph (a pass may have folded it away)").arg(name));
    return;
  }
  QDockWidget* d = dock(tr("Graph"));
  d->show();
  d->raise();
  graph_->view()->selectNodes({found});
  graphSelectionChanged({found});
}

// ---------------------------------------------------------------- files

void MainWindow::chooseModel() {
  const QString dir = settings_->value(kOpenDirKey, QDir::currentPath()).toString();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), dir, tr("ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

void MainWindow::chooseDeviceFile() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Device description"), QString(), tr("Device JSON (*.json)"));
  if (path.isEmpty()) {
    syncPickers();
    return;
  }
  session_->setDevice(path);
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = recent_->files();
  for (int i = 0; i < files.size(); ++i) {
    const QString path = files[i];
    QAction* a = recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
    a->setToolTip(path);
    a->setStatusTip(path);
    connect(a, &QAction::triggered, this, [this, path] { openModel(path); });
  }
  if (files.isEmpty()) recentMenu_->addAction(tr("(none)"))->setEnabled(false);
  recentMenu_->addSeparator();
  QAction* clear = recentMenu_->addAction(tr("Clear List"), recent_, &RecentFiles::clear);
  clear->setEnabled(!files.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls())
    for (const QUrl& url : event->mimeData()->urls())
      if (isOnnx(url)) {
        event->acceptProposedAction();
        return;
      }
  event->ignore();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (isOnnx(url)) {
      event->acceptProposedAction();
      openModel(url.toLocalFile());
      return;
    }
  event->ignore();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveLayout();
  session_->cancel();
  event->accept();
}

// ---------------------------------------------------------------- export

QString MainWindow::exportDirectory() const {
  return settings_->value(kExportDirKey, QFileInfo(session_->modelPath()).absolutePath()).toString();
}

void MainWindow::rememberExportDirectory(const QString& path) {
  settings_->setValue(kExportDirKey, QFileInfo(path).absolutePath());
}

QString MainWindow::defaultExportName(const QString& suffix) const {
  const QString base = QFileInfo(session_->modelPath()).completeBaseName();
  return QDir(exportDirectory()).filePath(QStringLiteral("%1-%2-%3%4").arg(base, session_->policy(), session_->device(), suffix));
}

quint64 MainWindow::exportTo(viz::ExportKind kind, const QString& path) { return session_->exportTo(kind, path); }

void MainWindow::chooseExport(viz::ExportKind kind) {
  QString path;
  switch (kind) {
    case viz::ExportKind::CudaProject:
    case viz::ExportKind::HipProject: {
      const bool hip = kind == viz::ExportKind::HipProject;
      // The project gets a folder of its own inside the chosen one.
      const QString parent = QFileDialog::getExistingDirectory(
          this, hip ? tr("Export HIP project into") : tr("Export CUDA project into"), exportDirectory());
      if (parent.isEmpty()) return;
      path = QDir(parent).filePath(QFileInfo(defaultExportName(hip ? QStringLiteral("-hip") : QStringLiteral("-cuda")))
                                       .fileName());
      settings_->setValue(kExportDirKey, parent);
      break;
    }
    case viz::ExportKind::ScheduleJson:
      path = QFileDialog::getSaveFileName(this, tr("Export schedule"), defaultExportName(QStringLiteral(".schedule.json")),
                                          tr("JSON (*.json)"));
      break;
    case viz::ExportKind::PredictedTrace:
    case viz::ExportKind::MeasuredTrace:
      path = QFileDialog::getSaveFileName(
          this, tr("Export Chrome trace"),
          defaultExportName(kind == viz::ExportKind::PredictedTrace ? QStringLiteral(".predicted.json")
                                                                    : QStringLiteral(".run.json")),
          tr("Chrome trace JSON (*.json)"));
      break;
    case viz::ExportKind::GraphDot:
      path = QFileDialog::getSaveFileName(this, tr("Export graph"), defaultExportName(QStringLiteral(".dot")),
                                          tr("Graphviz DOT (*.dot *.gv)"));
      break;
  }
  if (path.isEmpty()) return;
  if (kind != viz::ExportKind::CudaProject && kind != viz::ExportKind::HipProject) rememberExportDirectory(path);
  exportTo(kind, path);
}

void MainWindow::chooseImageExport(bool graph, const QString& suffix) {
  const QString path = QFileDialog::getSaveFileName(
      this, graph ? tr("Export graph") : tr("Export timeline"),
      defaultExportName((graph ? QStringLiteral(".graph.") : QStringLiteral(".timeline.")) + suffix),
      suffix == QStringLiteral("svg") ? tr("SVG (*.svg)") : tr("PNG (*.png)"));
  if (path.isEmpty()) return;
  rememberExportDirectory(path);
  const QString error = graph ? exportGraphImage(path) : exportTimelineImage(path);
  status_->setMessage(error.isEmpty() ? tr("wrote %1").arg(path) : tr("Export failed: %1").arg(error));
  if (!error.isEmpty()) session_->log()->error(tr("Export failed: %1").arg(error));
  else session_->log()->info(tr("wrote %1").arg(path));
}

QString MainWindow::exportGraphImage(const QString& path) {
  if (graph_->view()->isLayoutPending()) return tr("the graph layout is still running; try again when it is drawn");
  if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) return writeSceneSvg(graph_->view()->scene(), path);
  return writeScenePng(graph_->view()->scene(), path);
}

QString MainWindow::exportTimelineImage(const QString& path) { return writeWidgetPng(timeline_->view(), path); }

// ---------------------------------------------------------------- lookup

QDockWidget* MainWindow::dock(const QString& title) const {
  for (QDockWidget* d : docks_)
    if (d->windowTitle() == title) return d;
  return nullptr;
}

QAction* MainWindow::action(const QString& name) const { return actions_.value(name); }

viz::GraphView* MainWindow::graphView() const { return graph_->view(); }

}  // namespace rammer::studio
