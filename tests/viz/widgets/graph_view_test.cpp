#include "viz/widgets/graph_view.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QSignalSpy>
#include <QTest>

#include <functional>

#include "core/passes/pass_manager.h"
#include "samples/zoo/sample_catalog.h"
#include "tests/viz/viz_test_graphs.h"
#include "viz/models/node_search.h"

namespace rammer::viz {
namespace {

constexpr int kLayoutWaitMs = 120000;  // a bound on waiting, not a timing check

std::shared_ptr<const ir::Graph> shared(ir::Graph g) { return std::make_shared<const ir::Graph>(std::move(g)); }

// Shows `graph` in `view` and waits until the layout is drawn.
void showAndWait(GraphView& view, std::shared_ptr<const ir::Graph> graph) {
  QSignalSpy done(&view, &GraphView::layoutFinished);
  QSignalSpy failed(&view, &GraphView::layoutFailed);
  view.setGraph(std::move(graph));
  EXPECT_TRUE(view.isLayoutPending());
  ASSERT_TRUE(done.wait(kLayoutWaitMs)) << (failed.isEmpty() ? std::string("timed out")
                                                             : failed.first().first().toString().toStdString());
  EXPECT_FALSE(view.isLayoutPending());
}

QList<int> ids(const QSignalSpy& spy, int call) { return spy.at(call).at(0).value<QList<int>>(); }

TEST(GraphView, DrawsEveryOperatorTopDown) {
  GraphView view;
  view.resize(800, 600);
  showAndWait(view, shared(viztest::diamond()));
  for (int id = 0; id < 4; ++id) EXPECT_FALSE(view.nodeRect(id).isNull()) << id;
  EXPECT_LT(view.nodeRect(0).bottom(), view.nodeRect(1).top());
  EXPECT_LT(view.nodeRect(1).bottom(), view.nodeRect(3).top());
  EXPECT_TRUE(view.nodeRect(99).isNull());
  // 6 boxes and 6 edges in the scene.
  EXPECT_EQ(view.scene()->items().size(), 12);
}

TEST(GraphView, SelectNodesDoesNotEchoButClicksDo) {
  GraphView view;
  view.resize(800, 600);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  showAndWait(view, shared(viztest::diamond()));
  QSignalSpy selected(&view, &GraphView::nodeSelected);

  view.selectNodes({2, 3, 77});
  EXPECT_EQ(view.selectedNodes(), QList<int>({2, 3}));
  EXPECT_EQ(selected.count(), 0) << "programmatic selection must not be re-emitted";

  // A click on relu_a selects it alone and says so.
  view.centerOn(view.nodeRect(1).center());
  QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(view.nodeRect(1).center()));
  ASSERT_GE(selected.count(), 1);
  EXPECT_EQ(ids(selected, selected.count() - 1), QList<int>({1}));
  EXPECT_EQ(view.selectedNodes(), QList<int>({1}));

  // A click on the background clears it.
  const int before = static_cast<int>(selected.count());
  const QPointF empty = view.sceneRect().topLeft() + QPointF(5, 5);  // the margin: no box there
  QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(empty));
  ASSERT_GT(selected.count(), before);
  EXPECT_TRUE(ids(selected, selected.count() - 1).isEmpty());
}

// Two views wired both ways (as the graph and the timeline are): a user
// selection in one reaches the other, and nothing bounces back.
TEST(GraphView, SelectionRoundTripThroughSignals) {
  auto graph = shared(viztest::diamond());
  GraphView a, b;
  showAndWait(a, graph);
  showAndWait(b, graph);
  QObject::connect(&a, &GraphView::nodeSelected, &b, &GraphView::selectNodes);
  QObject::connect(&b, &GraphView::nodeSelected, &a, &GraphView::selectNodes);
  QSignalSpy fromA(&a, &GraphView::nodeSelected), fromB(&b, &GraphView::nodeSelected);

  // The user selects in A (scene selection, as a click does).
  a.scene()->clearSelection();
  for (QGraphicsItem* item : a.scene()->items(a.nodeRect(0).center()))
    if (item->flags() & QGraphicsItem::ItemIsSelectable) item->setSelected(true);
  EXPECT_EQ(b.selectedNodes(), QList<int>({0}));
  EXPECT_EQ(fromB.count(), 0);
  EXPECT_GE(fromA.count(), 1);

  b.scene()->clearSelection();  // user clears in B
  EXPECT_TRUE(a.selectedNodes().isEmpty());
  EXPECT_TRUE(b.selectedNodes().isEmpty());
}

TEST(GraphView, SelectionBeforeTheLayoutIsKept) {
  GraphView view;
  QSignalSpy done(&view, &GraphView::layoutFinished);
  view.setGraph(shared(viztest::diamond()));
  view.selectNodes({3});
  EXPECT_EQ(view.selectedNodes(), QList<int>({3}));
  ASSERT_TRUE(done.wait(kLayoutWaitMs));
  EXPECT_EQ(view.selectedNodes(), QList<int>({3}));
}

TEST(GraphView, SearchHighlightsAndCyclesThroughMatches) {
  auto graph = shared(viztest::grid(3, 3));
  GraphView view;
  view.resize(200, 150);  // smaller than the drawing: moving to a match scrolls
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  showAndWait(view, graph);
  QSignalSpy changed(&view, &GraphView::searchChanged);
  EXPECT_EQ(view.search("cell_1"), 3);
  QList<int> want;
  for (ir::NodeId id : findNodes(*graph, "cell_1")) want << id;
  EXPECT_EQ(view.searchMatches(), want);
  EXPECT_EQ(view.currentMatch(), 0);
  ASSERT_GE(changed.count(), 1);
  EXPECT_EQ(changed.last().at(0).toInt(), 3);
  view.nextMatch();
  view.nextMatch();
  EXPECT_EQ(view.currentMatch(), 2);
  view.nextMatch();
  EXPECT_EQ(view.currentMatch(), 0);  // wraps
  view.previousMatch();
  EXPECT_EQ(view.currentMatch(), 2);
  // The view moves to each match.
  for (int k = 0; k < 3; ++k) {
    view.nextMatch();
    const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
    EXPECT_TRUE(visible.contains(view.nodeRect(view.searchMatches()[view.currentMatch()]))) << k;
  }
  EXPECT_EQ(view.search("1x16"), 9);  // by shape
  EXPECT_EQ(view.search(""), 0);
  EXPECT_EQ(view.currentMatch(), -1);
}

TEST(GraphView, FusedGroupExpandsAndTheLayoutMakesRoom) {
  GraphView view;
  showAndWait(view, shared(viztest::fusedDiamond()));  // conv 0, add_c+fused 1
  ASSERT_TRUE(view.isFusedGroup(1));
  EXPECT_FALSE(view.isFusedGroup(0));
  const QRectF collapsed = view.nodeRect(1);

  QSignalSpy done(&view, &GraphView::layoutFinished);
  view.setFusedGroupExpanded(1, true);
  EXPECT_TRUE(view.isFusedGroupExpanded(1));
  // Grows at once (3 member lines and the expression), before the relayout.
  EXPECT_GT(view.nodeRect(1).height(), collapsed.height() + 30);
  ASSERT_TRUE(done.wait(kLayoutWaitMs));
  const QRectF expanded = view.nodeRect(1);
  EXPECT_GT(expanded.height(), collapsed.height() + 30);
  EXPECT_LT(view.nodeRect(0).bottom(), expanded.top()) << "the relayout keeps conv above the group";

  view.setFusedGroupExpanded(1, false);
  ASSERT_TRUE(done.wait(kLayoutWaitMs));
  EXPECT_NEAR(view.nodeRect(1).height(), collapsed.height(), 1.0);

  view.expandAllAction()->trigger();
  EXPECT_TRUE(view.isFusedGroupExpanded(1));
  view.collapseAllAction()->trigger();
  EXPECT_FALSE(view.isFusedGroupExpanded(1));
  view.setFusedGroupExpanded(0, true);  // not a group: ignored
  EXPECT_FALSE(view.isFusedGroupExpanded(0));
}

TEST(GraphView, ZoomAndFit) {
  GraphView view;
  view.resize(300, 200);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  showAndWait(view, shared(viztest::grid(6, 6)));
  view.resetZoom();
  EXPECT_DOUBLE_EQ(view.zoom(), 1.0);
  view.zoomInAction()->trigger();
  EXPECT_DOUBLE_EQ(view.zoom(), 1.25);
  view.zoomOut();
  view.zoomOut();
  EXPECT_DOUBLE_EQ(view.zoom(), 0.8);
  view.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&view));
  view.setFocus();
  QTest::keyClick(&view, Qt::Key_F);  // the fit shortcut: everything visible
  const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
  EXPECT_TRUE(visible.adjusted(-2, -2, 2, 2).contains(view.scene()->itemsBoundingRect()));
  EXPECT_LT(view.zoom(), 0.8);
}

TEST(GraphView, ClearingDropsEverything) {
  GraphView view;
  showAndWait(view, shared(viztest::diamond()));
  view.clear();
  EXPECT_EQ(view.graph(), nullptr);
  EXPECT_TRUE(view.scene()->items().isEmpty());
  EXPECT_TRUE(view.selectedNodes().isEmpty());
}

// A graph replaced while its layout runs: only the newest is drawn.
TEST(GraphView, ReplacingTheGraphMidLayoutDrawsTheNewOne) {
  GraphView view;
  QSignalSpy done(&view, &GraphView::layoutFinished);
  view.setGraph(shared(viztest::grid(20, 20)));
  view.setGraph(shared(viztest::diamond()));
  ASSERT_TRUE(done.wait(kLayoutWaitMs));
  QTest::qWait(50);
  while (view.isLayoutPending()) QTest::qWait(50);
  EXPECT_EQ(done.count(), 1);
  EXPECT_EQ(view.scene()->items().size(), 12);
}

TEST(GraphView, TwoThousandNodeGraphStaysUsable) {
  GraphView view;
  view.resize(1000, 700);
  QSignalSpy started(&view, &GraphView::layoutStarted);
  QSignalSpy done(&view, &GraphView::layoutFinished);
  view.setGraph(shared(viztest::grid(50, 40)));
  ASSERT_EQ(started.count(), 1);
  EXPECT_EQ(started.first().first().toInt(), 2002);
  ASSERT_TRUE(done.wait(kLayoutWaitMs));
  std::printf("[ layout   ] 2,002 boxes in the view: %.2f s\n", done.first().first().toDouble());
  for (int id = 0; id < 2000; ++id) ASSERT_FALSE(view.nodeRect(id).isNull()) << id;
  // Big graphs open readable (100 %) on their first box, not as a speck.
  EXPECT_DOUBLE_EQ(view.zoom(), 1.0);
  EXPECT_EQ(view.search("cell_49_39"), 1);
  view.selectNodes({1999});
  EXPECT_EQ(view.selectedNodes(), QList<int>({1999}));
  view.fitToView();
  EXPECT_LT(view.zoom(), 0.3);
  QPixmap shot = view.grab();  // paints every box at low detail
  EXPECT_FALSE(shot.isNull());
}

}  // namespace
}  // namespace rammer::viz

namespace rammer::viz {
namespace {

// Unfolding: waits for the relayout a fold change starts.
void waitRelayout(GraphView& view, const std::function<void()>& change) {
  QSignalSpy done(&view, &GraphView::layoutFinished);
  change();
  ASSERT_TRUE(done.wait(kLayoutWaitMs));
}

// Issue #16 item 6: a big model opens with each repeated layer as one box;
// the layer unfolds on a double-click and all fold and unfold by action,
// keeping the selection.
TEST(GraphView, BigGraphsOpenWithRepeatedLayersFolded) {
  GraphView view;
  view.resize(1000, 700);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  const auto g = shared(viztest::layered(12, 12));  // 158 operators
  showAndWait(view, g);
  ASSERT_EQ(view.repeatedLayers().size(), 12u);
  for (const RepeatedLayer& l : view.repeatedLayers()) EXPECT_TRUE(view.isLayerFolded(l.prefix)) << l.prefix;
  EXPECT_EQ(view.display().nodes.size(), 16u);  // stem, 12 layers, head, input, output

  // An operator of a folded layer selects its layer's box; the box stands
  // for all its operators.
  const RepeatedLayer layer3 = view.repeatedLayers()[3];
  view.selectNodes({layer3.nodes[5]});
  QList<int> members;
  for (ir::NodeId id : layer3.nodes) members << id;
  EXPECT_EQ(view.selectedNodes(), members);
  EXPECT_EQ(view.nodeRect(layer3.nodes[0]), view.nodeRect(layer3.nodes[5]));

  // A double-click unfolds it: its operators get their own boxes.
  const QRectF box = view.nodeRect(layer3.nodes[0]);
  view.centerOn(box.center());
  waitRelayout(view, [&] { QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(box.center())); });
  EXPECT_FALSE(view.isLayerFolded(layer3.prefix));
  EXPECT_TRUE(view.isLayerFolded(view.repeatedLayers()[4].prefix));
  EXPECT_EQ(view.display().nodes.size(), 16u - 1 + layer3.nodes.size());
  EXPECT_NE(view.nodeRect(layer3.nodes[0]), view.nodeRect(layer3.nodes[5]));
  EXPECT_EQ(view.selectedNodes(), members) << "the selection outlives the fold";

  waitRelayout(view, [&] { view.unfoldLayersAction()->trigger(); });
  EXPECT_EQ(view.display().nodes.size(), 160u);
  waitRelayout(view, [&] { view.foldLayersAction()->trigger(); });
  EXPECT_EQ(view.display().nodes.size(), 16u);
  QPixmap shot = view.grab();  // paints the layer boxes
  EXPECT_FALSE(shot.isNull());
}

TEST(GraphView, SmallGraphsOpenUnfolded) {
  GraphView view;
  showAndWait(view, shared(viztest::layered(2, 3)));
  ASSERT_EQ(view.repeatedLayers().size(), 2u);
  EXPECT_FALSE(view.isLayerFolded(view.repeatedLayers()[0].prefix));
  EXPECT_EQ(view.display().nodes.size(), 1u + 2 * 4 + 1 + 2);
  EXPECT_TRUE(view.foldLayersAction()->isEnabled());
  showAndWait(view, shared(viztest::diamond()));
  EXPECT_FALSE(view.foldLayersAction()->isEnabled()) << "nothing to fold";
}

// The full BERT-base sample (12 encoder layers, 324 operators after the
// passes) reads as its diagram: 12 layer boxes.
TEST(GraphView, BertBaseFoldsIntoTwelveLayers) {
  const auto catalog = samples::sampleCatalog();
  ir::Graph g = samples::findSample(catalog, "bert_base")->build({});
  passes::PassContext ctx;
  ASSERT_TRUE(passes::standardPipeline().run(g, ctx).ok());
  g.compact();
  GraphView view;
  view.resize(1400, 900);
  QSignalSpy done(&view, &GraphView::layoutFinished);
  showAndWait(view, shared(std::move(g)));
  std::printf("[ layout   ] BERT-base, layers folded: %.2f s\n", done.first().first().toDouble());
  ASSERT_EQ(view.repeatedLayers().size(), 12u);
  size_t layerBoxes = 0;
  for (const DisplayNode& n : view.display().nodes) layerBoxes += n.kind == DisplayNodeKind::Layer;
  EXPECT_EQ(layerBoxes, 12u);
  EXPECT_LT(view.display().nodes.size(), 20u);
}

}  // namespace
}  // namespace rammer::viz
