#pragma once
// Rammer Studio's main window: nine dockable, restorable panels (Graph,
// Timeline, rKernels, Inspector, Metrics, Code, Diagnostics, Log, Teach) around
// one viz::StudioSession. Models open by dialog, drag-and-drop, recent
// files or the command line; the toolbar picks the policy, device and
// batch; every long job runs on the session's worker with progress and
// Cancel in the status bar, which also says what the machine can do.
//
// The window never computes anything itself: it forwards requests to the
// session and shows what the session publishes. StudioDocks makes and
// wires the panels, StudioExports the Export menu, EditingController the
// Edit menu and the undo stack; the window owns the rest of the chrome
// (actions, menus, toolbar, layout, status bar).
#include <QMainWindow>
#include <QHash>
#include <QList>
#include <memory>
#include <optional>

#include "app/studio/command_line.h"
#include "app/studio/headless_run.h"
#include "core/runtime/cuda_probe.h"
#include "viz/models/capability_report.h"
#include "viz/models/pipeline_job.h"
#include "viz/models/studio_session.h"

class QAction;
class QComboBox;
class QDockWidget;
class QMenu;
class QSettings;
class QSpinBox;

namespace rammer::viz {
class CodeView;
class GraphPage;
class GraphView;
class InspectorView;
class KernelsView;
}  // namespace rammer::viz

namespace rammer::studio {

class DiagnosticsPage;
class EditingController;
class MetricsPage;
class PipelineToolBar;
class RecentFiles;
class RunTargetActions;
class StatusPanel;
class StudioDocks;
class HeadlessRun;
class StudioExports;
class TimelinePage;

struct MainWindowOptions {
  QString settingsFile;  // an INI file; empty: the user's settings for rammer-studio
  // Load, print one line (or the error) and exit with 0 (or 1); no dialogs.
  bool quitAfterLoad = false;
  // Load, render a view to a PNG and exit likewise (app/studio/headless_run.h).
  std::optional<ScreenshotRequest> screenshot;
  // Used instead of probing the machine (tests); absent: probed on a worker.
  std::optional<runtime::CudaCapability> capability;
};

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  // Bumped when the set or names of the docks change: an older saved
  // layout is then ignored rather than half-applied.
  static constexpr int kLayoutVersion = 2;

  explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  viz::StudioSession* session() const { return session_; }

  // --policy/--device/--batch, then opens MODEL when there is one.
  void applyCommandLine(const StudioCommandLine& commandLine);
  quint64 openModel(const QString& path);

  // The nine docks, in menu order; a dock by its title ("Graph", ...).
  QList<QDockWidget*> docks() const;
  QDockWidget* dock(const QString& title) const;
  // An action by object name ("open", "compileRun", "exportSchedule", ...).
  QAction* action(const QString& name) const;

  viz::GraphView* graphView() const;
  TimelinePage* timelinePage() const;
  viz::InspectorView* inspector() const;
  viz::CodeView* codeView() const;
  MetricsPage* metricsPage() const;
  DiagnosticsPage* diagnosticsPage() const;
  viz::KernelsView* kernelsView() const;
  EditingController* editing() const { return editing_; }
  StatusPanel* statusPanel() const { return status_; }
  QComboBox* policyPicker() const;
  QComboBox* devicePicker() const;
  RecentFiles* recentFiles() const { return recent_; }

  // The Export menu without its dialogs (tests, automation).
  quint64 exportTo(viz::ExportKind kind, const QString& path);
  // Graph as SVG or PNG (by suffix), timeline as PNG; "" on success.
  QString exportGraphImage(const QString& path);
  QString exportTimelineImage(const QString& path);

  void resetLayout();
  void saveLayout();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createActions();
  void createMenus();
  void createToolBar();
  void connectSession();
  void restoreLayout();
  void probeCapability();

  void chooseModel();

  void onModelLoaded();
  void onPlanChanged();
  void onMeasuredChanged();
  void onDiagnosticsChanged();
  void onJobFinished(quint64 job, bool ok);
  void updateActions();
  void updateTitle();

  MainWindowOptions options_;
  std::unique_ptr<QSettings> settings_;
  viz::StudioSession* session_ = nullptr;
  RecentFiles* recent_ = nullptr;
  StatusPanel* status_ = nullptr;
  StudioDocks* docks_ = nullptr;
  StudioExports* exports_ = nullptr;
  RunTargetActions* runTargets_ = nullptr;
  EditingController* editing_ = nullptr;

  PipelineToolBar* toolbar_ = nullptr;
  QHash<QString, QAction*> actions_;

  quint64 loadJob_ = 0;  // --quit-after-load and --screenshot wait for this one
  QString pendingMeasured_;  // --measured: opened once loadJob_ succeeds, then waited for instead
  HeadlessRun* headless_ = nullptr;  // with --quit-after-load or --screenshot
  viz::PipelineJob* probe_ = nullptr;  // the machine's capability, off the UI thread
};

}  // namespace rammer::studio
