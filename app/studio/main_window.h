#pragma once
// Rammer Studio's main window: eight dockable, restorable panels (Graph,
// Timeline, rKernels, Inspector, Metrics, Code, Diagnostics, Log) around
// one viz::StudioSession. Models open by dialog, drag-and-drop, recent
// files or the command line; the toolbar picks the policy, device and
// batch; every long job runs on the session's worker with progress and
// Cancel in the status bar, which also says what the machine can do.
//
// The window never computes anything itself: it forwards requests to the
// session and shows what the session publishes.
#include <QMainWindow>
#include <QFutureWatcher>
#include <QHash>
#include <QList>
#include <memory>
#include <optional>

#include "app/studio/command_line.h"
#include "core/runtime/cuda_probe.h"
#include "viz/models/capability_report.h"
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
}  // namespace rammer::viz

namespace rammer::studio {

class DiagnosticsPage;
class LogPage;
class MetricsPage;
class RecentFiles;
class StatusPanel;
class TimelinePage;

struct MainWindowOptions {
  QString settingsFile;  // an INI file; empty: the user's settings for rammer-studio
  // Load, print one line (or the error) and exit with 0 (or 1); no dialogs.
  bool quitAfterLoad = false;
  // Used instead of probing the machine (tests); absent: probed on a worker.
  std::optional<runtime::CudaCapability> capability;
};

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  // Bumped when the set or names of the docks change: an older saved
  // layout is then ignored rather than half-applied.
  static constexpr int kLayoutVersion = 1;

  explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  viz::StudioSession* session() const { return session_; }

  // --policy/--device/--batch, then opens MODEL when there is one.
  void applyCommandLine(const StudioCommandLine& commandLine);
  quint64 openModel(const QString& path);

  // The eight docks, in menu order; a dock by its title ("Graph", ...).
  QList<QDockWidget*> docks() const { return docks_; }
  QDockWidget* dock(const QString& title) const;
  // An action by object name ("open", "compileRun", "exportSchedule", ...).
  QAction* action(const QString& name) const;

  viz::GraphView* graphView() const;
  TimelinePage* timelinePage() const { return timeline_; }
  viz::InspectorView* inspector() const { return inspector_; }
  viz::CodeView* codeView() const { return code_; }
  MetricsPage* metricsPage() const { return metrics_; }
  DiagnosticsPage* diagnosticsPage() const { return diagnostics_; }
  StatusPanel* statusPanel() const { return status_; }
  QComboBox* policyPicker() const { return policyBox_; }
  QComboBox* devicePicker() const { return deviceBox_; }
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
  void createDocks();
  QDockWidget* addDock(const QString& title, QWidget* page, const QString& tip);
  void connectSession();
  void restoreLayout();
  void probeCapability();

  void chooseModel();
  void chooseDeviceFile();
  void chooseExport(viz::ExportKind kind);
  void chooseImageExport(bool graph, const QString& suffix);
  QString defaultExportName(const QString& suffix) const;
  QString exportDirectory() const;
  void rememberExportDirectory(const QString& path);
  void rebuildRecentMenu();

  void onModelLoaded();
  void onPlanChanged();
  void refreshCode();
  void onMeasuredChanged();
  void onDiagnosticsChanged();
  void onJobFinished(quint64 job, bool ok);
  void onLoadFailed(const QString& message);
  void syncPickers();
  void updateActions();
  void updateTitle();

  void graphSelectionChanged(const QList<int>& nodes);
  void timelineSelectionChanged(const QList<int>& ops);
  void findNode(const QString& name);
  void showInspector(int node);

  MainWindowOptions options_;
  std::unique_ptr<QSettings> settings_;
  viz::StudioSession* session_ = nullptr;
  RecentFiles* recent_ = nullptr;

  viz::GraphPage* graph_ = nullptr;
  TimelinePage* timeline_ = nullptr;
  viz::InspectorView* inspector_ = nullptr;
  viz::CodeView* code_ = nullptr;
  MetricsPage* metrics_ = nullptr;
  DiagnosticsPage* diagnostics_ = nullptr;
  LogPage* log_ = nullptr;
  StatusPanel* status_ = nullptr;
  QList<QDockWidget*> docks_;

  QComboBox* policyBox_ = nullptr;
  QComboBox* deviceBox_ = nullptr;
  QSpinBox* batchBox_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QMenu* exportMenu_ = nullptr;
  QHash<QString, QAction*> actions_;

  // Plan op index of each graph node (and back), for the selection links.
  QHash<int, int> opOfNode_;
  int inspectedNode_ = -1;
  quint64 loadJob_ = 0;  // --quit-after-load waits for this one
  bool syncing_ = false;
  bool codeVisible_ = false;
  bool codeStale_ = true;  // the Code dock has not seen the current plan
  QFutureWatcher<viz::CapabilityReport> probe_;
};

}  // namespace rammer::studio
