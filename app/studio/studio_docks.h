#pragma once
// The one place the studio's nine panels are made and wired (as Hotspot's
// ResultsPage wires its pages): it creates every page and its dock, lays
// the docks out, and links the selections — a node picked in the graph
// selects its operator's rTasks in the timeline, shows it in the Inspector
// and jumps the Code dock to it, and the other way round. The Code dock
// generates code only while someone looks at it.
#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

class QDockWidget;
class QMainWindow;

namespace rammer::viz {
class CodeView;
class GraphPage;
class InspectorView;
class KernelsView;
class StudioSession;
class TeachingView;
}  // namespace rammer::viz

namespace rammer::studio {

class DiagnosticsPage;
class LogPage;
class MetricsPage;
class TimelinePage;

class StudioDocks : public QObject {
  Q_OBJECT

 public:
  StudioDocks(QMainWindow* window, viz::StudioSession* session);

  // In menu order: Graph, Timeline, rKernels, Inspector, Metrics, Code,
  // Diagnostics, Log, Teach.
  const QList<QDockWidget*>& docks() const { return docks_; }
  QDockWidget* dock(const QString& title) const;
  // Shows and raises a dock (e.g. Diagnostics when an error arrives).
  void raise(const QString& title);
  // Every dock docked and shown where a first start puts it.
  void resetLayout();

  viz::GraphPage* graph() const { return graph_; }
  TimelinePage* timeline() const { return timeline_; }
  viz::KernelsView* kernels() const { return kernels_; }
  viz::InspectorView* inspector() const { return inspector_; }
  MetricsPage* metrics() const { return metrics_; }
  viz::CodeView* code() const { return code_; }
  DiagnosticsPage* diagnostics() const { return diagnostics_; }
  LogPage* log() const { return log_; }
  viz::TeachingView* teach() const { return teach_; }

  // A new model: the graph view shows it, nothing is inspected.
  void showModel();
  // A new plan: the op <-> node links, the inspector and (stale) code follow it.
  void showPlan();
  // Selects the node (or the producer of the value) of that name in the
  // graph; false when the optimized graph has no such name.
  bool findNode(const QString& name);

 signals:
  // A line for the status bar.
  void message(const QString& text);

 private:
  QDockWidget* addDock(const QString& title, QWidget* page, const QString& tip);
  void graphSelectionChanged(const QList<int>& nodes);
  void timelineSelectionChanged(const QList<int>& ops);
  void showInspector(int node);
  void refreshCode();
  // The prediction's critical path to the timeline (its Critical path action).
  void showCriticalPath();

  QMainWindow* window_;
  viz::StudioSession* session_;
  QList<QDockWidget*> docks_;

  viz::GraphPage* graph_ = nullptr;
  TimelinePage* timeline_ = nullptr;
  viz::KernelsView* kernels_ = nullptr;
  viz::InspectorView* inspector_ = nullptr;
  MetricsPage* metrics_ = nullptr;
  viz::CodeView* code_ = nullptr;
  DiagnosticsPage* diagnostics_ = nullptr;
  LogPage* log_ = nullptr;
  viz::TeachingView* teach_ = nullptr;

  // Plan op index of each graph node, for the selection links.
  QHash<int, int> opOfNode_;
  int inspectedNode_ = -1;
  bool codeVisible_ = false;
  bool codeStale_ = true;  // the Code dock has not seen the current plan
};

}  // namespace rammer::studio
