#include "app/studio/studio_docks.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>

#include "app/studio/diagnostics_page.h"
#include "app/studio/log_page.h"
#include "app/studio/metrics_page.h"
#include "app/studio/timeline_page.h"
#include "core/sim/critical_path.h"
#include "viz/models/log_model.h"
#include "viz/models/studio_session.h"
#include "viz/widgets/code_view.h"
#include "viz/widgets/graph_page.h"
#include "viz/widgets/graph_view.h"
#include "viz/widgets/inspector_view.h"
#include "viz/widgets/kernels_view.h"
#include "viz/widgets/teaching_view.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::studio {

StudioDocks::StudioDocks(QMainWindow* window, viz::StudioSession* session)
    : QObject(window), window_(window), session_(session) {
  graph_ = new viz::GraphPage(window);
  timeline_ = new TimelinePage(window);
  kernels_ = new viz::KernelsView(window);
  inspector_ = new viz::InspectorView(window);
  metrics_ = new MetricsPage(session->metricsModel(), window);
  code_ = new viz::CodeView(window);
  diagnostics_ = new DiagnosticsPage(session->diagnosticsModel(), window);
  log_ = new LogPage(session->log(), window);
  teach_ = new viz::TeachingView(window);

  addDock(tr("Graph"), graph_, tr("The optimized data-flow graph"));
  addDock(tr("Timeline"), timeline_, tr("rTasks on vEUs, predicted and run"));
  addDock(tr("rKernels"), kernels_, tr("Candidate rKernels of the selected operator; pin one"));
  addDock(tr("Inspector"), inspector_, tr("The selected operator: attributes, shapes, parameters, rKernel"));
  addDock(tr("Metrics"), metrics_, tr("Predicted beside measured (or emulated) numbers"));
  QDockWidget* codeDock = addDock(tr("Code"), code_, tr("The plan's generated CUDA or HIP code"));
  addDock(tr("Diagnostics"), diagnostics_, tr("Errors, warnings and notes of every stage"));
  addDock(tr("Log"), log_, tr("What each stage did and how long it took"));
  addDock(tr("Teach"), teach_, tr("Step through how the policy built the plan: its decisions with their numbers"));

  // Code is generated only while someone looks at it.
  connect(codeDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    codeVisible_ = visible;
    refreshCode();
  });
  connect(graph_->view(), &viz::GraphView::nodeSelected, this, &StudioDocks::graphSelectionChanged);
  connect(timeline_->view(), &viz::TimelineView::opsSelected, this, &StudioDocks::timelineSelectionChanged);
  connect(diagnostics_, &DiagnosticsPage::nodeActivated, this, [this](const QString& name) {
    if (!findNode(name)) emit message(tr("'%1' is not in the optimized graph (a pass may have folded it away)").arg(name));
  });
  connect(diagnostics_, &DiagnosticsPage::rtaskActivated, this, [this](int op, int rtask) {
    raise(tr("Timeline"));
    timeline_->view()->highlightTasks({schedule::RTask{op, rtask}});
  });
  connect(graph_->view(), &viz::GraphView::layoutFailed, this,
          [this](const QString& message) { session_->log()->error(tr("Graph layout failed: %1").arg(message)); });
  connect(session_, &viz::StudioSession::traceChanged, this, [this] {
    showCriticalPath();
    timeline_->setPredicted(session_->predictedTrace());
    teach_->setPlan(session_->plan(), session_->predictedTrace());
  });
  // The step's operators light up in the graph.
  connect(teach_, &viz::TeachingView::stepChanged, graph_->view(), &viz::GraphView::selectNodes);
}

QDockWidget* StudioDocks::addDock(const QString& title, QWidget* page, const QString& tip) {
  auto* d = new QDockWidget(title, window_);
  d->setObjectName(title + QStringLiteral("Dock"));  // the key saveState uses
  d->setWidget(page);
  d->setToolTip(tip);
  d->toggleViewAction()->setToolTip(tr("Show or hide the %1 panel").arg(title));
  docks_ << d;
  return d;
}

QDockWidget* StudioDocks::dock(const QString& title) const {
  for (QDockWidget* d : docks_)
    if (d->windowTitle() == title) return d;
  return nullptr;
}

void StudioDocks::raise(const QString& title) {
  if (QDockWidget* d = dock(title)) {
    d->show();
    d->raise();
  }
}

void StudioDocks::resetLayout() {
  for (QDockWidget* d : std::as_const(docks_)) {
    d->setFloating(false);
    window_->removeDockWidget(d);
  }
  auto get = [this](const char* title) { return dock(tr(title)); };
  window_->addDockWidget(Qt::LeftDockWidgetArea, get("Graph"));
  window_->addDockWidget(Qt::RightDockWidgetArea, get("Inspector"));
  window_->tabifyDockWidget(get("Inspector"), get("rKernels"));
  window_->tabifyDockWidget(get("Inspector"), get("Code"));
  window_->addDockWidget(Qt::BottomDockWidgetArea, get("Timeline"));
  window_->splitDockWidget(get("Timeline"), get("Diagnostics"), Qt::Horizontal);
  window_->tabifyDockWidget(get("Diagnostics"), get("Metrics"));
  window_->tabifyDockWidget(get("Diagnostics"), get("Log"));
  window_->tabifyDockWidget(get("Diagnostics"), get("Teach"));
  for (QDockWidget* d : std::as_const(docks_)) {
    d->setFloating(false);
    d->show();
  }
  get("Inspector")->raise();
  get("Diagnostics")->raise();
  window_->resizeDocks({get("Graph"), get("Inspector")}, {700, 340}, Qt::Horizontal);
  window_->resizeDocks({get("Timeline"), get("Diagnostics")}, {760, 420}, Qt::Horizontal);
  window_->resizeDocks({get("Graph"), get("Timeline")}, {480, 300}, Qt::Vertical);
}

void StudioDocks::showModel() {
  inspectedNode_ = -1;
  showInspector(-1);
  opOfNode_.clear();
  graph_->view()->setGraph(session_->graph());
}

void StudioDocks::showPlan() {
  codeStale_ = true;
  refreshCode();
  // A plan on its own graph (attention fused, an IOS merge) names that
  // graph's nodes: draw it, so a selection means the same node in both views.
  if (graph_->view()->graph() != session_->graph().get()) graph_->view()->setGraph(session_->graph());
  opOfNode_.clear();
  if (auto plan = session_->plan())
    for (int i = 0; i < static_cast<int>(plan->ops.size()); ++i)
      opOfNode_.insert(plan->ops[static_cast<size_t>(i)].node, i);
  showInspector(inspectedNode_);
}

void StudioDocks::showCriticalPath() {
  const auto trace = session_->predictedTrace();
  const auto plan = session_->plan();
  QList<schedule::RTask> tasks;
  QString summary;
  if (trace && plan) {
    const sim::CriticalPath path = sim::criticalPath(*plan, *trace);
    for (const sim::CriticalLink& l : path.links) tasks << trace->tasks.at(l.task).task;
    const auto share = [&](double us) { return qRound(100 * path.share(us)); };
    if (!path.empty())
      summary = tr("%1 us through %2 operators: compute %3%, hand-offs %4% (%5, median %6 us, p99 %7 us), "
                   "queueing behind other work %8%, launches %9%")
                    .arg(path.lengthUs, 0, 'f', 1)
                    .arg(path.operators)
                    .arg(share(path.computeUs))
                    .arg(share(path.handoffUs))
                    .arg(path.handoffs)
                    .arg(path.handoffQuantileUs(0.5), 0, 'f', 2)
                    .arg(path.handoffQuantileUs(0.99), 0, 'f', 2)
                    .arg(share(path.queueUs))
                    .arg(share(path.launchUs));
  }
  timeline_->setCriticalPath(tasks, summary);
}

void StudioDocks::refreshCode() {
  if (!codeVisible_ || !codeStale_) return;
  codeStale_ = false;
  code_->setPlan(session_->plan(), session_->graph());
}

void StudioDocks::graphSelectionChanged(const QList<int>& nodes) {
  QList<int> ops;
  for (int n : nodes)
    if (auto it = opOfNode_.constFind(n); it != opOfNode_.cend()) ops << it.value();
  timeline_->view()->selectOps(ops);
  if (!ops.isEmpty() && codeVisible_) code_->jumpToOp(ops.first());
  showInspector(nodes.isEmpty() ? -1 : nodes.first());
}

void StudioDocks::timelineSelectionChanged(const QList<int>& ops) {
  auto plan = session_->plan();
  QList<int> nodes;
  if (plan)
    for (int op : ops)
      if (op >= 0 && op < static_cast<int>(plan->ops.size())) nodes << plan->ops[static_cast<size_t>(op)].node;
  graph_->view()->selectNodes(nodes);
  if (!ops.isEmpty() && codeVisible_) code_->jumpToOp(ops.first());
  showInspector(nodes.isEmpty() ? -1 : nodes.first());
}

void StudioDocks::showInspector(int node) {
  inspectedNode_ = node;
  auto graph = session_->graph();
  if (!graph) {
    inspector_->clear();
    return;
  }
  if (node < 0 || node >= static_cast<int>(graph->numNodeSlots()) || graph->node(node).removed) {
    inspector_->showOverview(*graph, session_->plan().get(), session_->predictedTrace().get());
    return;
  }
  inspector_->showNode(*graph, node, session_->plan().get());
}

bool StudioDocks::findNode(const QString& name) {
  auto graph = session_->graph();
  if (!graph) return false;
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
  if (found < 0) return false;
  raise(tr("Graph"));
  graph_->view()->selectNodes({found});
  graphSelectionChanged({found});
  return true;
}

}  // namespace rammer::studio
