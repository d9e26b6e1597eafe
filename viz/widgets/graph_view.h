#pragma once
// The data-flow graph: Graphviz dot layout computed off the UI thread, drawn
// top-down in a QGraphicsScene (operators coloured by category, shapes on
// edges). Wheel or Ctrl+= / Ctrl+- zoom, dragging the background pans, F
// fits; fused groups expand and collapse; repeated layers (encoder layers,
// blocks; viz/models/layer_folding.h) fold into one box each, by default
// when the graph is too big to read whole, and unfold on a double-click;
// search highlights and centres matches.
//
// Selection is by ir::NodeId (operators only; graph input/output pills are
// not operators). nodeSelected is emitted for the user's changes only, and
// selectNodes (the timeline's way in) does not emit it, so wiring
// view.nodeSelected -> timeline.selectTasks and timeline.tasksSelected ->
// view.selectNodes cannot ping-pong.
#include <QGraphicsView>
#include <QList>
#include <QSet>
#include <atomic>
#include <optional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "viz/models/graph_display.h"
#include "viz/models/graph_layout.h"
#include "viz/models/pipeline_job.h"

class QAction;

namespace rammer::viz {

class GraphNodeItem;
class GraphEdgeItem;

// What the layout thread hands back.
struct LayoutJobResult {
  bool skipped = false;  // a newer request superseded it before it ran
  std::optional<GraphLayout> layout;
  QString error;
  double seconds = 0;
};

class GraphView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;

  // Shows `graph`; the layout runs on a worker thread and layoutFinished
  // says when it is drawn. The view shares ownership so a layout in flight
  // never reads a graph the caller has dropped. nullptr clears the view.
  void setGraph(std::shared_ptr<const ir::Graph> graph);
  void clear() { setGraph(nullptr); }
  const ir::Graph* graph() const { return graph_.get(); }
  const GraphDisplay& display() const { return display_; }
  bool isLayoutPending() const { return layout_->isBusy(); }

  // Operators selected, in display (topological) order.
  QList<int> selectedNodes() const;

  // Highlights the operators matching `query` (see viz/models/node_search.h)
  // and centres the first; returns how many matched. Empty query clears.
  int search(const QString& query);
  QList<int> searchMatches() const { return matches_; }
  int currentMatch() const { return current_; }  // index into searchMatches(), -1 when none

  // Fused groups (FusedElementwise nodes that replaced several ops).
  bool isFusedGroup(int nodeId) const;
  bool isFusedGroupExpanded(int nodeId) const;
  void setFusedGroupExpanded(int nodeId, bool expanded);
  void setAllFusedGroupsExpanded(bool expanded);

  // Repeated layers (viz/models/layer_folding.h), each folded or not; a
  // change rebuilds the drawing (the selection stays).
  const std::vector<RepeatedLayer>& repeatedLayers() const { return layers_; }
  bool isLayerFolded(const std::string& prefix) const { return folded_.count(prefix) > 0; }
  void setLayerFolded(const std::string& prefix, bool folded);
  void setAllLayersFolded(bool folded);

  // Scene rectangle of an operator's box; null before the layout or when
  // the node is not shown.
  QRectF nodeRect(int nodeId) const;
  double zoom() const;

  // For toolbars and menus; also active as shortcuts while the view has focus.
  QAction* zoomInAction() const { return zoomIn_; }
  QAction* zoomOutAction() const { return zoomOut_; }
  QAction* resetZoomAction() const { return resetZoom_; }
  QAction* fitAction() const { return fit_; }
  QAction* expandAllAction() const { return expandAll_; }
  QAction* collapseAllAction() const { return collapseAll_; }
  QAction* foldLayersAction() const { return foldLayers_; }
  QAction* unfoldLayersAction() const { return unfoldLayers_; }

 public slots:
  // Selects exactly these operators (unknown ids are ignored) and brings the
  // first into view; does not emit nodeSelected.
  void selectNodes(const QList<int>& nodeIds);
  void centerOnNode(int nodeId);
  void zoomIn();
  void zoomOut();
  void resetZoom();
  void fitToView();
  void nextMatch();
  void previousMatch();
  void clearSearch() { search(QString()); }

 signals:
  void nodeSelected(const QList<int>& nodeIds);
  void nodeActivated(int nodeId);  // double-click on an operator
  void layoutStarted(int nodes);
  void layoutFinished(double seconds);
  void layoutFailed(const QString& message);
  void searchChanged(int matches, int current);
  void zoomChanged(double zoom);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  void requestLayout(int anchorIndex);
  void layoutDone(const LayoutJobResult& r);
  void applyLayout(const GraphLayout& layout);
  void createItems();
  void sceneSelectionChanged();
  void emphasiseEdges();
  void applySearchMarks();
  void goToMatch(int index);
  void setZoom(double z, bool underMouse = false);
  GraphNodeItem* operatorItem(int nodeId) const;
  GraphNodeItem* nodeItemAt(const QPoint& viewportPos) const;
  void toggleFused(GraphNodeItem* item);
  // New boxes for the current graph and folds; `centreNode` (>= 0) is shown
  // at 100 % once drawn.
  void rebuildDisplay(int centreNode, bool keepSelection = true);

  QGraphicsScene* scene_ = nullptr;
  std::shared_ptr<const ir::Graph> graph_;
  GraphDisplay display_;
  std::vector<GraphNodeItem*> nodeItems_;  // by display index; empty until the first layout
  std::vector<GraphEdgeItem*> edgeItems_;
  QSet<int> expanded_;  // display indices of expanded fused groups
  std::vector<RepeatedLayer> layers_;
  std::set<std::string> folded_;  // prefixes of the folded layers
  int centreAfterLayout_ = -1;    // a node to centre at 100 % when the rebuilt drawing arrives
  QList<int> pendingSelection_;
  bool hasPendingSelection_ = false;

  // The layouts, newest first; detached: a view that closes does not wait
  // for Graphviz.
  PipelineJob* layout_ = nullptr;
  int anchorIndex_ = -1;  // keep this box where it was on screen across a relayout
  QPointF anchorOffset_;  // view centre minus the anchor's centre, in scene units

  QList<int> matches_;
  int current_ = -1;
  bool programmaticSelection_ = false;

  // Background panning that keeps the selection (Qt's hand drag clears it).
  bool panning_ = false;
  bool panMoved_ = false;
  QPoint panLast_;
  QPoint panStart_;

  QAction* zoomIn_ = nullptr;
  QAction* zoomOut_ = nullptr;
  QAction* resetZoom_ = nullptr;
  QAction* fit_ = nullptr;
  QAction* expandAll_ = nullptr;
  QAction* collapseAll_ = nullptr;
  QAction* foldLayers_ = nullptr;
  QAction* unfoldLayers_ = nullptr;
};

}  // namespace rammer::viz
