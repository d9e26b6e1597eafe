// The main window offscreen: a model opened from the command line reaches
// every view, the eight docks exist and toggle, the layout survives a
// restart, exports write valid files, Compile & Run without a GPU runs the
// emulator and says so, drag-and-drop and recent files open models.
#include "app/studio/main_window.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QGroupBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrl>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/studio/diagnostics_page.h"
#include "app/studio/metrics_page.h"
#include "app/studio/recent_files.h"
#include "app/studio/status_panel.h"
#include "app/studio/timeline_page.h"
#include "viz/models/diagnostics_model.h"
#include "viz/models/log_model.h"
#include "viz/models/metrics_model.h"
#include "viz/widgets/code_view.h"
#include "viz/widgets/graph_view.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::studio {
namespace {

constexpr int kWaitMs = 120000;

QString sampleCnn() { return QStringLiteral(RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx"); }
QString inceptionBlock() { return QStringLiteral(RAMMER_SOURCE_DIR "/samples/models/inception_block.onnx"); }

runtime::CudaCapability noGpu() {
  runtime::CudaCapability c;
  c.message = "no CUDA driver (libcuda.so.1 not found)";
  return c;
}

StudioCommandLine commandLine(QStringList args) {
  args.prepend(QStringLiteral("rammer-studio"));
  return parseCommandLine(args);
}

class MainWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir.isValid());
    window = makeWindow();
  }
  void TearDown() override {
    if (window) window->session()->waitForWorkers();
  }

  std::unique_ptr<MainWindow> makeWindow() {
    MainWindowOptions options;
    options.settingsFile = dir.filePath(QStringLiteral("studio.ini"));
    options.capability = noGpu();
    auto w = std::make_unique<MainWindow>(options);
    w->show();
    return w;
  }

  // Opens MODEL from a command line and waits for plan, trace and the
  // timeline's lanes.
  void openFromCommandLine(MainWindow& w, const QStringList& args) {
    QSignalSpy done(w.session(), &viz::StudioSession::jobFinished);
    w.applyCommandLine(commandLine(args));
    ASSERT_TRUE(done.wait(kWaitMs));
    ASSERT_TRUE(done.first().at(1).toBool());
    if (w.timelinePage()->isBuilding()) {
      QSignalSpy ready(w.timelinePage(), &TimelinePage::ready);
      ASSERT_TRUE(ready.wait(kWaitMs));
    }
  }

  QTemporaryDir dir;
  std::unique_ptr<MainWindow> window;
};

TEST(StudioCommandLine, ParsesOptionsAndRefusesBadOnes) {
  StudioCommandLine c = commandLine({QStringLiteral("--policy"), QStringLiteral("greedy"), QStringLiteral("--device"),
                                     QStringLiteral("a100"), QStringLiteral("--batch"), QStringLiteral("4"),
                                     QStringLiteral("--quit-after-load"), QStringLiteral("m.onnx")});
  EXPECT_TRUE(c.error.isEmpty()) << c.error.toStdString();
  EXPECT_EQ(c.model, "m.onnx");
  EXPECT_EQ(c.policy, "greedy");
  EXPECT_EQ(c.device, "a100");
  EXPECT_EQ(c.batch, 4);
  EXPECT_TRUE(c.quitAfterLoad);
  EXPECT_FALSE(commandLine({QStringLiteral("--batch"), QStringLiteral("0")}).error.isEmpty());
  EXPECT_FALSE(commandLine({QStringLiteral("--quit-after-load")}).error.isEmpty());
  EXPECT_FALSE(commandLine({QStringLiteral("a.onnx"), QStringLiteral("b.onnx")}).error.isEmpty());
  EXPECT_FALSE(commandLine({QStringLiteral("--bogus")}).error.isEmpty());
  // A policy is one of the registry's (an alias too), or a usage error listing them.
  EXPECT_TRUE(commandLine({QStringLiteral("--policy"), QStringLiteral("Rammer")}).error.isEmpty());
  EXPECT_TRUE(commandLine({QStringLiteral("--policy"), QStringLiteral("fastest")})
                  .error.startsWith(QStringLiteral("unknown policy 'fastest'; policies: sequential")));
  EXPECT_TRUE(commandLine({}).model.isEmpty());
  // --measured: a trace beside the model's plan, so only with a model.
  c = commandLine({QStringLiteral("--measured"), QStringLiteral("t.json.xz"), QStringLiteral("m.onnx")});
  EXPECT_TRUE(c.error.isEmpty()) << c.error.toStdString();
  EXPECT_EQ(c.measured, "t.json.xz");
  EXPECT_TRUE(commandLine({QStringLiteral("--measured"), QStringLiteral("t.json.xz")}).error.contains("needs a MODEL"));
}

TEST_F(MainWindowTest, OpensAModelFromTheCommandLineIntoEveryView) {
  openFromCommandLine(*window, {QStringLiteral("--policy"), QStringLiteral("sequential"), sampleCnn()});
  viz::StudioSession* s = window->session();
  EXPECT_EQ(s->modelPath(), sampleCnn());
  ASSERT_TRUE(s->plan());
  EXPECT_EQ(s->plan()->policy, "sequential");
  EXPECT_EQ(window->policyPicker()->currentText(), "sequential");
  EXPECT_EQ(window->devicePicker()->currentText(), "h100");
  // IOS's options show only under the ios policy (policy_options_panel.h).
  auto* iosVariant = window->findChild<QComboBox*>(QStringLiteral("iosVariantPicker"));
  ASSERT_TRUE(iosVariant);
  EXPECT_EQ(iosVariant->currentText(), "parallel");
  auto* iosOptions = window->findChild<QGroupBox*>(QStringLiteral("iosOptions"));
  ASSERT_TRUE(iosOptions);
  EXPECT_TRUE(iosOptions->isHidden());
  EXPECT_TRUE(window->windowTitle().contains(QStringLiteral("sample_cnn.onnx")));
  // The graph view shows the session's optimized graph; the timeline its prediction.
  EXPECT_EQ(window->graphView()->graph(), s->graph().get());
  EXPECT_EQ(window->timelinePage()->view()->model().trace().tasks.size(), s->plan()->numRTasks());
  EXPECT_GT(window->timelinePage()->view()->model().numLanes(), 0);
  EXPECT_EQ(window->statusPanel()->capabilityText(), "simulated: no GPU (no CUDA driver)");
  EXPECT_EQ(window->diagnosticsPage()->summaryText(), "No problems.");
  // Recent files remember it.
  EXPECT_EQ(window->recentFiles()->files().value(0), sampleCnn());

  // The Code dock (a tab behind the Inspector) generates only when shown.
  EXPECT_TRUE(window->codeView()->source().isEmpty());
  QSignalSpy generated(window->codeView(), &viz::CodeView::generated);
  window->dock(QStringLiteral("Code"))->raise();
  ASSERT_TRUE(generated.count() > 0 || generated.wait(kWaitMs));
  EXPECT_TRUE(generated.first().first().toBool());
  EXPECT_TRUE(window->codeView()->source().contains(QStringLiteral("__global__")));
}

TEST_F(MainWindowTest, AllNineDocksExistAndToggle) {
  const QStringList titles = {QStringLiteral("Graph"),   QStringLiteral("Timeline"), QStringLiteral("rKernels"),
                              QStringLiteral("Inspector"), QStringLiteral("Metrics"),  QStringLiteral("Code"),
                              QStringLiteral("Diagnostics"), QStringLiteral("Log"), QStringLiteral("Teach")};
  ASSERT_EQ(window->docks().size(), titles.size());
  for (const QString& title : titles) {
    QDockWidget* d = window->dock(title);
    ASSERT_NE(d, nullptr) << title.toStdString();
    EXPECT_FALSE(d->objectName().isEmpty());
    ASSERT_NE(d->widget(), nullptr);
    EXPECT_FALSE(d->isHidden()) << title.toStdString();
    d->toggleViewAction()->trigger();
    EXPECT_TRUE(d->isHidden()) << title.toStdString();
    d->toggleViewAction()->trigger();
    EXPECT_FALSE(d->isHidden()) << title.toStdString();
  }
}

TEST_F(MainWindowTest, DockLayoutIsSavedAndRestored) {
  window->dock(QStringLiteral("Log"))->hide();
  window->dock(QStringLiteral("Code"))->setFloating(true);
  window->close();  // saves
  window.reset();
  QSettings saved(dir.filePath(QStringLiteral("studio.ini")), QSettings::IniFormat);
  EXPECT_TRUE(saved.contains(QStringLiteral("mainWindow/stateV%1").arg(MainWindow::kLayoutVersion)));

  window = makeWindow();
  EXPECT_TRUE(window->dock(QStringLiteral("Log"))->isHidden());
  EXPECT_TRUE(window->dock(QStringLiteral("Code"))->isFloating());
  EXPECT_FALSE(window->dock(QStringLiteral("Graph"))->isHidden());
  window->resetLayout();
  EXPECT_FALSE(window->dock(QStringLiteral("Log"))->isHidden());
  EXPECT_FALSE(window->dock(QStringLiteral("Code"))->isFloating());
}

TEST_F(MainWindowTest, ActionsHaveTheirShortcuts) {
  EXPECT_EQ(window->action(QStringLiteral("open"))->shortcut(), QKeySequence(QKeySequence::Open));
  EXPECT_EQ(window->action(QStringLiteral("compileRun"))->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_R));
  EXPECT_EQ(window->action(QStringLiteral("export"))->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
  EXPECT_EQ(window->action(QStringLiteral("reschedule"))->shortcut(), QKeySequence(Qt::Key_F5));
  EXPECT_EQ(window->action(QStringLiteral("quit"))->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Q));
  EXPECT_EQ(window->action(QStringLiteral("openMeasured"))->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  // Nothing to run, export or measure against before a model is open.
  EXPECT_FALSE(window->action(QStringLiteral("openMeasured"))->isEnabled());
  EXPECT_FALSE(window->action(QStringLiteral("compileRun"))->isEnabled());
  EXPECT_FALSE(window->action(QStringLiteral("exportSchedule"))->isEnabled());
  EXPECT_FALSE(window->action(QStringLiteral("cancel"))->isEnabled());
}

TEST_F(MainWindowTest, ExportsScheduleAndChromeTraceAsValidJson) {
  openFromCommandLine(*window, {sampleCnn()});
  EXPECT_TRUE(window->action(QStringLiteral("exportSchedule"))->isEnabled());
  EXPECT_TRUE(window->action(QStringLiteral("openMeasured"))->isEnabled());
  const auto plan = window->session()->plan();
  QSignalSpy exported(window->session(), &viz::StudioSession::exportFinished);

  const QString schedule = dir.filePath(QStringLiteral("s.json"));
  ASSERT_NE(window->exportTo(viz::ExportKind::ScheduleJson, schedule), 0u);
  ASSERT_TRUE(exported.wait(kWaitMs));
  ASSERT_TRUE(exported.takeFirst().first().toBool());
  {
    std::ifstream in(schedule.toStdString());
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j["format"], "rammer-schedule");
    EXPECT_EQ(j["policy"], plan->policy);
    EXPECT_EQ(j["programs"].size(), plan->programs.size());
  }

  const QString trace = dir.filePath(QStringLiteral("t.json"));
  ASSERT_NE(window->exportTo(viz::ExportKind::PredictedTrace, trace), 0u);
  ASSERT_TRUE(exported.wait(kWaitMs));
  ASSERT_TRUE(exported.takeFirst().first().toBool());
  {
    std::ifstream in(trace.toStdString());
    const auto j = nlohmann::json::parse(in);
    const auto& events = j.is_array() ? j : j.at("traceEvents");
    size_t tasks = 0;
    for (const auto& e : events) tasks += e.value("ph", "") == "X" && e.contains("args") && e["args"].contains("rtask");
    EXPECT_EQ(tasks, plan->numRTasks());
  }
  EXPECT_TRUE(window->statusPanel()->message().contains(QStringLiteral("t.json")));

  // The timeline as PNG (drawn by the widget).
  const QString png = dir.filePath(QStringLiteral("timeline.png"));
  EXPECT_EQ(window->exportTimelineImage(png), "");
  QFile file(png);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  EXPECT_TRUE(file.read(8).startsWith("\x89PNG"));
}

TEST_F(MainWindowTest, ExportsTheGraphAsSvgPngAndDot) {
  openFromCommandLine(*window, {sampleCnn()});
  if (window->graphView()->isLayoutPending()) {
    QSignalSpy laidOut(window->graphView(), &viz::GraphView::layoutFinished);
    ASSERT_TRUE(laidOut.wait(kWaitMs));
  }
  const QString svg = dir.filePath(QStringLiteral("g.svg"));
  EXPECT_EQ(window->exportGraphImage(svg), "");
  QFile svgFile(svg);
  ASSERT_TRUE(svgFile.open(QIODevice::ReadOnly));
  const QByteArray svgText = svgFile.readAll();
  EXPECT_TRUE(svgText.contains("<svg"));
  EXPECT_TRUE(svgText.contains("stem")) << "operator names are drawn as text";

  const QString png = dir.filePath(QStringLiteral("g.png"));
  EXPECT_EQ(window->exportGraphImage(png), "");
  QFile pngFile(png);
  ASSERT_TRUE(pngFile.open(QIODevice::ReadOnly));
  EXPECT_TRUE(pngFile.read(8).startsWith("\x89PNG"));

  QSignalSpy exported(window->session(), &viz::StudioSession::exportFinished);
  const QString dot = dir.filePath(QStringLiteral("g.dot"));
  ASSERT_NE(window->exportTo(viz::ExportKind::GraphDot, dot), 0u);
  ASSERT_TRUE(exported.wait(kWaitMs));
  EXPECT_TRUE(exported.first().first().toBool());
  QFile dotFile(dot);
  ASSERT_TRUE(dotFile.open(QIODevice::ReadOnly));
  EXPECT_TRUE(dotFile.readAll().startsWith("digraph"));
}

TEST_F(MainWindowTest, CompileAndRunWithoutAGpuRunsTheEmulatorAndSaysSo) {
  openFromCommandLine(*window, {sampleCnn()});
  QAction* run = window->action(QStringLiteral("compileRun"));
  ASSERT_TRUE(run->isEnabled());
  QSignalSpy ran(window->session(), &viz::StudioSession::runFinished);
  run->trigger();
  EXPECT_TRUE(window->action(QStringLiteral("cancel"))->isEnabled());
  ASSERT_TRUE(ran.wait(kWaitMs));
  ASSERT_TRUE(ran.first().first().toBool());
  EXPECT_EQ(window->session()->runLabel(), "emulated: CPU (no GPU)");
  // Every place that shows the run says it was emulated.
  EXPECT_EQ(window->session()->metricsModel()->headerData(viz::MetricsModel::MeasuredColumn, Qt::Horizontal).toString(),
            "emulated: CPU (no GPU)");
  EXPECT_TRUE(window->metricsPage()->sourceText().contains(QStringLiteral("emulated: CPU (no GPU)")));
  EXPECT_TRUE(window->timelinePage()->sourcesText().contains(QStringLiteral("emulated: CPU (no GPU)")));
  EXPECT_TRUE(window->statusPanel()->message().startsWith(QStringLiteral("emulated: CPU (no GPU)")));
  // The emulation is drawn on its own time axis (it runs far slower than the
  // GPU it stands in for); the prediction and the comparison are a click away.
  TimelinePage* timeline = window->timelinePage();
  if (timeline->isBuilding()) {
    QSignalSpy ready(timeline, &TimelinePage::ready);
    ASSERT_TRUE(ready.wait(kWaitMs));
  }
  EXPECT_EQ(timeline->display(), TimelinePage::Display::Run);
  EXPECT_EQ(timeline->view()->model().trace().source, "emulated: CPU (no GPU)");
  EXPECT_EQ(timeline->view()->model().trace().tasks.size(), window->session()->plan()->numRTasks());
  EXPECT_EQ(timeline->view()->comparisonModel(), nullptr);
  QSignalSpy ready(timeline, &TimelinePage::ready);
  timeline->setDisplay(TimelinePage::Display::Compare);
  ASSERT_TRUE(ready.count() > 0 || ready.wait(kWaitMs));
  EXPECT_EQ(timeline->view()->model().trace().source, window->session()->predictedTrace()->source);
  const viz::TimelineModel* comparison = timeline->view()->comparisonModel();
  ASSERT_NE(comparison, nullptr);
  EXPECT_EQ(comparison->trace().source, "emulated: CPU (no GPU)");
  EXPECT_TRUE(window->action(QStringLiteral("exportMeasuredTrace"))->isEnabled());
}

// The four transformer kinds (issue #16 item 6), the committed tiny exports:
// each opens, lays out with its LayerNorms findable in the graph view, is
// scheduled, and Compile & Run emulates it and checks it against the reference.
TEST_F(MainWindowTest, TransformersOpenLayOutScheduleAndEmulate) {
  for (const char* name : {"encoder", "decoder", "vit_tiny", "swin_tiny"}) {
    SCOPED_TRACE(name);
    const QString model = QStringLiteral(RAMMER_SOURCE_DIR "/tests/data/transformers/%1/model.onnx").arg(name);
    openFromCommandLine(*window, {model});
    viz::StudioSession* s = window->session();
    EXPECT_EQ(s->modelPath(), model);
    ASSERT_TRUE(s->plan());
    EXPECT_GT(s->plan()->numRTasks(), 0u);
    viz::GraphView* graph = window->graphView();
    if (graph->isLayoutPending()) {
      QSignalSpy laidOut(graph, &viz::GraphView::layoutFinished);
      ASSERT_TRUE(laidOut.wait(kWaitMs));
    }
    EXPECT_EQ(graph->graph(), s->graph().get());
    EXPECT_GE(graph->search(QStringLiteral("LayerNormalization")), 2);
    // The view draws the plan's graph: its Attention operators are there
    // exactly when the plan fused attention (the device's cost model decides).
    int attentionOps = 0;
    const std::vector<ir::NodeId> order = s->graph()->topologicalOrder().value();
    for (ir::NodeId id : order) attentionOps += s->graph()->node(id).opType == "Attention";
    EXPECT_EQ(graph->search(QStringLiteral("op:Attention")) >= 1, attentionOps > 0);
    graph->clearSearch();
    QSignalSpy ran(s, &viz::StudioSession::runFinished);
    window->action(QStringLiteral("compileRun"))->trigger();
    ASSERT_TRUE(ran.wait(kWaitMs));
    EXPECT_TRUE(ran.first().first().toBool());
    EXPECT_EQ(s->runLabel(), "emulated: CPU (no GPU)");
    s->waitForWorkers();
  }
}

// A first look at a big plan is readable (issue #17 item 4): the window
// fits its screen, and the 264 vEU lanes of a wavefront plan on the H100
// preset (2 per SM: its convolutions run at 128 registers) start as 132
// folded SM lanes; one action shows every vEU again.
TEST_F(MainWindowTest, AFirstViewOfABigPlanIsReadable) {
  const QSize screen = window->screen()->availableGeometry().size();
  EXPECT_LE(window->width(), screen.width());
  EXPECT_LE(window->height(), screen.height());
  openFromCommandLine(*window, {inceptionBlock()});
  viz::TimelineView* timeline = window->timelinePage()->view();
  ASSERT_EQ(timeline->model().numLanes(), 132);
  for (int l = 0; l < timeline->model().numLanes(); ++l) ASSERT_TRUE(timeline->model().lane(l).folded()) << l;
  timeline->folds()->unfoldAction()->trigger();
  EXPECT_EQ(timeline->model().numLanes(), 264);
  // A small plan's lanes fit: nothing folds.
  openFromCommandLine(*window, {sampleCnn()});
  EXPECT_TRUE(timeline->model().foldedSms().empty() ||
              timeline->model().numLanes() * timeline->laneHeight() > timeline->viewport()->height());
}

// Run > Run On > Generated Code on CPU: the host target, labelled so in
// every place that shows the run, remembered for the next session.
TEST_F(MainWindowTest, CompileAndRunOnTheHostTargetRunsTheGeneratedCode) {
  qputenv("RAMMER_HOST_CACHE", RAMMER_BINARY_DIR "/host-cache");
  openFromCommandLine(*window, {sampleCnn()});
  QAction* host = window->action(QStringLiteral("runTargetHost"));
  ASSERT_NE(host, nullptr);
  EXPECT_TRUE(window->action(QStringLiteral("runTargetAuto"))->isChecked());
  host->trigger();
  EXPECT_TRUE(host->isChecked());
  EXPECT_FALSE(window->action(QStringLiteral("runTargetAuto"))->isChecked());
  EXPECT_EQ(window->session()->runTarget(), viz::RunTarget::Host);
  QSignalSpy ran(window->session(), &viz::StudioSession::runFinished);
  window->action(QStringLiteral("compileRun"))->trigger();
  ASSERT_TRUE(ran.wait(kWaitMs));
  ASSERT_TRUE(ran.first().first().toBool());
  EXPECT_EQ(window->session()->runBackend(), viz::RunBackend::Host);
  EXPECT_EQ(window->session()->runLabel(), "generated code on CPU");
  EXPECT_EQ(window->session()->metricsModel()->headerData(viz::MetricsModel::MeasuredColumn, Qt::Horizontal).toString(),
            "generated code on CPU");
  EXPECT_TRUE(window->statusPanel()->message().startsWith(QStringLiteral("generated code on CPU")));
  TimelinePage* timeline = window->timelinePage();
  if (timeline->isBuilding()) {
    QSignalSpy ready(timeline, &TimelinePage::ready);
    ASSERT_TRUE(ready.wait(kWaitMs));
  }
  EXPECT_EQ(timeline->display(), TimelinePage::Display::Run);
  EXPECT_TRUE(timeline->view()->model().trace().source.starts_with("generated code on CPU"));
  EXPECT_EQ(timeline->view()->model().trace().tasks.size(), window->session()->plan()->numRTasks());

  // The choice is remembered.
  window->session()->waitForWorkers();
  window.reset();
  window = makeWindow();
  EXPECT_EQ(window->session()->runTarget(), viz::RunTarget::Host);
  EXPECT_TRUE(window->action(QStringLiteral("runTargetHost"))->isChecked());
}

// Run > Run On > Launch as One CUDA Graph: the GPU and the generated code
// replay one captured run; the log says so, and the choice is remembered.
TEST_F(MainWindowTest, LaunchAsOneCudaGraphReplaysTheRunAndIsRemembered) {
  qputenv("RAMMER_HOST_CACHE", RAMMER_BINARY_DIR "/host-cache");
  openFromCommandLine(*window, {sampleCnn()});
  QAction* graph = window->action(QStringLiteral("runLaunchGraph"));
  ASSERT_NE(graph, nullptr);
  EXPECT_FALSE(graph->isChecked());
  EXPECT_EQ(window->session()->launchMode(), runtime::LaunchMode::Stream);
  graph->trigger();
  EXPECT_TRUE(graph->isChecked());
  EXPECT_EQ(window->session()->options().run.gpu.run.launch, runtime::LaunchMode::Graph);
  EXPECT_EQ(window->session()->options().run.host.launch, runtime::LaunchMode::Graph);
  // Not one of the targets: choosing one leaves it on.
  window->action(QStringLiteral("runTargetHost"))->trigger();
  EXPECT_TRUE(graph->isChecked());
  QSignalSpy ran(window->session(), &viz::StudioSession::runFinished);
  window->action(QStringLiteral("compileRun"))->trigger();
  ASSERT_TRUE(ran.wait(kWaitMs));
  ASSERT_TRUE(ran.first().first().toBool());
  EXPECT_EQ(window->session()->runBackend(), viz::RunBackend::Host);
  const viz::LogModel* log = window->session()->log();
  bool replayed = false;
  for (int i = 0; i < log->rowCount(); ++i)
    replayed = replayed || log->index(i).data().toString().contains(QStringLiteral("replayed as one graph"));
  EXPECT_TRUE(replayed);

  window->session()->waitForWorkers();
  window.reset();
  window = makeWindow();
  EXPECT_EQ(window->session()->launchMode(), runtime::LaunchMode::Graph);
  EXPECT_TRUE(window->action(QStringLiteral("runLaunchGraph"))->isChecked());
}

TEST_F(MainWindowTest, PickersRescheduleAndBadFilesShowDiagnostics) {
  openFromCommandLine(*window, {sampleCnn()});
  QSignalSpy done(window->session(), &viz::StudioSession::jobFinished);
  window->policyPicker()->setCurrentText(QStringLiteral("greedy"));
  emit window->policyPicker()->activated(window->policyPicker()->currentIndex());
  ASSERT_TRUE(done.wait(kWaitMs));
  EXPECT_EQ(window->session()->plan()->policy, "greedy");
  EXPECT_TRUE(window->windowTitle().contains(QStringLiteral("greedy")));

  const QString junk = dir.filePath(QStringLiteral("junk.onnx"));
  {
    std::ofstream out(junk.toStdString());
    out << "not a model";
  }
  done.clear();
  window->openModel(junk);
  ASSERT_TRUE(done.wait(kWaitMs));
  EXPECT_FALSE(done.first().at(1).toBool());
  // The good model stays; the Diagnostics dock shows the import error, on top.
  EXPECT_EQ(window->session()->modelPath(), sampleCnn());
  EXPECT_GT(window->session()->diagnosticsModel()->count(ir::Severity::Error), 0);
  EXPECT_TRUE(window->diagnosticsPage()->summaryText().startsWith(QStringLiteral("1 error")));
  EXPECT_FALSE(window->dock(QStringLiteral("Diagnostics"))->isHidden());
  EXPECT_TRUE(window->statusPanel()->message().contains(QStringLiteral("Could not open")));
}

TEST_F(MainWindowTest, DroppingAnOnnxFileOpensIt) {
  auto* mime = new QMimeData;
  mime->setUrls({QUrl::fromLocalFile(inceptionBlock())});
  QSignalSpy done(window->session(), &viz::StudioSession::jobFinished);
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(window.get(), &enter);
  EXPECT_TRUE(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(window.get(), &drop);
  ASSERT_TRUE(done.wait(kWaitMs));
  EXPECT_EQ(window->session()->modelPath(), inceptionBlock());

  // Other files are not taken.
  QMimeData text;
  text.setUrls({QUrl::fromLocalFile(dir.filePath(QStringLiteral("notes.txt")))});
  QDragEnterEvent other(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(window.get(), &other);
  EXPECT_FALSE(other.isAccepted());
  delete mime;
}

TEST_F(MainWindowTest, CancelLeavesTheWindowUsable) {
  const QString lstm = QStringLiteral(RAMMER_BINARY_DIR "/samples/lstm_tc.onnx");
  ASSERT_TRUE(std::filesystem::exists(lstm.toStdString()));
  QSignalSpy cancelled(window->session(), &viz::StudioSession::cancelled);
  window->openModel(lstm);
  EXPECT_TRUE(window->action(QStringLiteral("cancel"))->isEnabled());
  window->action(QStringLiteral("cancel"))->trigger();
  EXPECT_EQ(cancelled.count(), 1);
  EXPECT_FALSE(window->action(QStringLiteral("cancel"))->isEnabled());
  EXPECT_TRUE(window->statusPanel()->message().startsWith(QStringLiteral("Cancelled")));
  openFromCommandLine(*window, {sampleCnn()});
  EXPECT_EQ(window->session()->modelPath(), sampleCnn());
}

}  // namespace
}  // namespace rammer::studio
