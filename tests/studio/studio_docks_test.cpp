// The panels are made and wired in one place: StudioDocks makes the nine
// docks with their real pages (no page is swapped in later), and links a
// selection in one panel to the others.
#include "app/studio/studio_docks.h"

#include <gtest/gtest.h>

#include <QDockWidget>
#include <QMainWindow>
#include <QSignalSpy>
#include <QTest>
#include <QToolBar>

#include "app/studio/diagnostics_page.h"
#include "app/studio/editing_controller.h"
#include "app/studio/main_window.h"
#include "app/studio/timeline_page.h"
#include "core/sim/critical_path.h"
#include "viz/models/studio_session.h"
#include "viz/widgets/graph_page.h"
#include "viz/models/inspector_model.h"
#include "viz/widgets/graph_view.h"
#include "viz/widgets/inspector_view.h"
#include "viz/widgets/kernels_view.h"
#include "viz/models/teaching_model.h"
#include "viz/widgets/teaching_view.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::studio {
namespace {

constexpr int kWaitMs = 120000;

// The docks wired to a session as the main window wires them, on a window.
struct DocksWithSession {
  QMainWindow window;
  viz::StudioSession session;
  StudioDocks docks{&window, &session};

  DocksWithSession() {
    QObject::connect(&session, &viz::StudioSession::modelLoaded, &docks, &StudioDocks::showModel);
    QObject::connect(&session, &viz::StudioSession::planChanged, &docks, &StudioDocks::showPlan);
    window.show();
  }
  // Opens a committed sample and waits for its plan.
  void open(const char* sample) {
    QSignalSpy done(&session, &viz::StudioSession::jobFinished);
    session.openModel(QStringLiteral(RAMMER_SOURCE_DIR "/samples/models/%1.onnx").arg(sample), 1);
    EXPECT_TRUE(done.wait(kWaitMs));
  }
};

TEST(StudioDocks, MakesTheNinePanelsWithTheirPages) {
  QMainWindow window;
  viz::StudioSession session;
  StudioDocks docks(&window, &session);
  QStringList titles;
  for (QDockWidget* d : docks.docks()) titles << d->windowTitle();
  EXPECT_EQ(titles, (QStringList{"Graph", "Timeline", "rKernels", "Inspector", "Metrics", "Code", "Diagnostics", "Log", "Teach"}));
  EXPECT_EQ(docks.dock("Graph")->widget(), docks.graph());
  EXPECT_EQ(docks.dock("Timeline")->widget(), docks.timeline());
  EXPECT_EQ(docks.dock("rKernels")->widget(), docks.kernels());
  EXPECT_EQ(docks.dock("nosuch"), nullptr);
  for (QDockWidget* d : docks.docks()) EXPECT_FALSE(d->objectName().isEmpty());  // saveState's key
}

// The main window's rKernels dock holds the editor's kernels view from the
// start, and it is the same widget after the controller is made.
TEST(StudioDocks, TheWindowsRKernelsDockIsTheEditorsViewFromTheStart) {
  MainWindowOptions options;
  options.settingsFile = QStringLiteral("%1/studio_docks_test.ini").arg(QStringLiteral(RAMMER_BINARY_DIR));
  options.capability = runtime::CudaCapability{};
  MainWindow window(options);
  ASSERT_NE(window.editing(), nullptr);
  EXPECT_EQ(window.dock("rKernels")->widget(), window.kernelsView());
  EXPECT_EQ(window.editing()->kernelsView(), window.kernelsView());
}

// Teaching mode follows the plan; each step lights its operators up in
// the graph (issue #17 item 2).
TEST(StudioDocks, TheTeachDockFollowsThePlanAndHighlightsTheGraph) {
  DocksWithSession d;
  d.open("inception_block");
  viz::StudioSession& session = d.session;
  StudioDocks& docks = d.docks;
  ASSERT_TRUE(session.plan());
  viz::GraphView* graph = docks.graph()->view();
  if (graph->isLayoutPending()) {
    QSignalSpy laidOut(graph, &viz::GraphView::layoutFinished);
    ASSERT_TRUE(laidOut.wait(kWaitMs));
  }
  viz::TeachingModel* model = docks.teach()->model();
  QTRY_VERIFY_WITH_TIMEOUT(!docks.teach()->isBusy(), kWaitMs);  // the steps are read on a worker
  EXPECT_EQ(model->plan(), session.plan().get());
  EXPECT_EQ(static_cast<size_t>(model->rowCount()), session.plan()->steps.size());
  for (int step : {1, 2}) {
    docks.teach()->nextAction()->trigger();
    ASSERT_EQ(model->current(), step);
    QList<int> want = model->currentNodes(), got = graph->selectedNodes();
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want);
    EXPECT_FALSE(got.isEmpty());
  }
}

TEST(StudioDocks, FindingANodeSelectsItEverywhere) {
  DocksWithSession d;
  d.open("sample_cnn");
  viz::StudioSession& session = d.session;
  StudioDocks& docks = d.docks;
  ASSERT_TRUE(session.plan());

  // A diagnostic naming a node the passes folded away: a message, no selection.
  QSignalSpy messages(&docks, &StudioDocks::message);
  EXPECT_FALSE(docks.findNode(QStringLiteral("nosuch")));
  emit docks.diagnostics()->nodeActivated(QStringLiteral("folded.away"));
  ASSERT_EQ(messages.count(), 1);
  EXPECT_TRUE(messages.first().first().toString().contains(QStringLiteral("'folded.away' is not in the optimized graph")));
  EXPECT_TRUE(docks.findNode(QStringLiteral("stem")));
  int stemOp = -1;
  for (size_t i = 0; i < session.plan()->ops.size(); ++i)
    if (session.plan()->ops[i].name == "stem") stemOp = static_cast<int>(i);
  ASSERT_GE(stemOp, 0);
  // The graph selected the node; the timeline its operator's rTasks.
  ASSERT_EQ(docks.graph()->view()->selectedNodes().size(), 1);
  EXPECT_EQ(docks.graph()->view()->selectedNodes().first(), session.plan()->ops[static_cast<size_t>(stemOp)].node);
  EXPECT_EQ(docks.timeline()->view()->selectedOps(), QList<int>{stemOp});
  session.waitForWorkers();
}

// With nothing selected the Inspector shows the model and the plan, not an
// empty table; a selected node replaces them, and unselecting brings them
// back (issue #29 item 3).
TEST(StudioDocks, TheInspectorSummarizesTheModelAndPlanUntilANodeIsSelected) {
  DocksWithSession d;
  d.open("sample_cnn");
  viz::InspectorModel* m = d.docks.inspector()->model();
  ASSERT_TRUE(d.session.plan());
  EXPECT_TRUE(m->section(QStringLiteral("Model")).isValid());
  const QModelIndex plan = m->section(QStringLiteral("Plan"));
  ASSERT_TRUE(plan.isValid());
  EXPECT_EQ(m->data(m->index(plan.row(), viz::InspectorModel::ValueColumn)).toString(),
            QStringLiteral("wavefront on h100"));
  EXPECT_TRUE(m->child(plan, QStringLiteral("Predicted latency")).isValid());
  ASSERT_TRUE(d.docks.findNode(QStringLiteral("stem")));
  EXPECT_TRUE(m->section(QStringLiteral("Operator")).isValid());
  EXPECT_FALSE(m->section(QStringLiteral("Model")).isValid());
  emit d.docks.graph()->view()->nodeSelected({});  // the person clears the selection
  EXPECT_TRUE(m->section(QStringLiteral("Plan")).isValid());
  d.session.waitForWorkers();
}

// The timeline's window is an object with actions: the page's toolbar
// shows them, and they drive the view.
TEST(StudioDocks, TheTimelineToolbarCarriesTheViewsZoomActions) {
  TimelinePage page;
  viz::TimelineZoom* zoom = page.view()->zoom();
  auto* bar = page.findChild<QToolBar*>();
  ASSERT_NE(bar, nullptr);
  for (QAction* a : {zoom->zoomInAction(), zoom->zoomOutAction(), zoom->fitAction()})
    EXPECT_TRUE(bar->actions().contains(a)) << a->text().toStdString();
  zoom->setExtent(0, 100);
  zoom->zoomInAction()->trigger();
  EXPECT_LT(page.view()->visibleEndUs() - page.view()->visibleStartUs(), 100);
  zoom->fitAction()->trigger();
  EXPECT_DOUBLE_EQ(page.view()->visibleEndUs() - page.view()->visibleStartUs(), 100);
}

// The Critical path action outlines the prediction's critical path
// (issue #45 item 1): the rTasks sim::criticalPath finds, and none once off.
TEST(StudioDocks, TheCriticalPathActionOutlinesThePredictionsPath) {
  DocksWithSession d;
  d.open("inception_block");
  TimelinePage* page = d.docks.timeline();
  QTRY_VERIFY_WITH_TIMEOUT(!page->isBuilding(), kWaitMs);
  ASSERT_TRUE(d.session.plan() && d.session.predictedTrace());
  const sim::Trace& trace = *d.session.predictedTrace();
  const sim::CriticalPath path = sim::criticalPath(*d.session.plan(), trace);
  ASSERT_FALSE(path.empty());
  QList<schedule::RTask> want;
  for (const sim::CriticalLink& l : path.links) want << trace.tasks.at(l.task).task;
  EXPECT_TRUE(page->view()->highlightedTasks().isEmpty());
  page->criticalPathAction()->trigger();
  EXPECT_EQ(page->view()->highlightedTasks(), want);
  // An arrow for each hand-off between the path's rTasks.
  EXPECT_EQ(page->view()->pathArrows(), want.size() - 1);
  const QString tip = page->criticalPathAction()->toolTip();
  EXPECT_TRUE(tip.contains("through") && tip.contains("queueing")) << tip.toStdString();
  const QString median = QString::number(path.handoffQuantileUs(0.5), 'f', 2);
  EXPECT_TRUE(tip.contains(QStringLiteral("median %1 us").arg(median))) << tip.toStdString();
  page->criticalPathAction()->trigger();
  EXPECT_TRUE(page->view()->highlightedTasks().isEmpty());
  EXPECT_EQ(page->view()->pathArrows(), 0);
  d.session.waitForWorkers();
}

// A diagnostic that names an rTask: activating it outlines that rTask.
TEST(StudioDocks, ADiagnosticsRTaskIsOutlinedInTheTimeline) {
  QMainWindow window;
  viz::StudioSession session;
  StudioDocks docks(&window, &session);
  emit docks.diagnostics()->rtaskActivated(0, 1);
  EXPECT_EQ(docks.timeline()->view()->highlightedTasks(), (QList<schedule::RTask>{schedule::RTask{0, 1}}));
}

}  // namespace
}  // namespace rammer::studio
