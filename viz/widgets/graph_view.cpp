#include "viz/widgets/graph_view.h"

#include <QAction>
#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "viz/models/node_search.h"
#include "viz/widgets/graph_edge_item.h"
#include "viz/widgets/graph_node_item.h"

namespace rammer::viz {

namespace {

constexpr double kMinZoom = 0.01;
constexpr double kMaxZoom = 4.0;
constexpr double kZoomStep = 1.25;
constexpr double kMargin = 40;        // scene padding around the drawing
constexpr double kReadableZoom = 0.3; // below this a first view is unreadable
// Graphs with more operators open with their repeated layers folded:
// BERT-base's 324 would otherwise be a column some 20,000 points tall.
constexpr size_t kFoldLayersAbove = 150;

LayoutJobResult runLayout(const LayoutRequest& request, const pipeline::Control& control) {
  LayoutJobResult r;
  // Rapid toggles queue several layouts; only the newest is worth computing
  // (a superseded job's flag is set).
  if (control.cancelled()) {
    r.skipped = true;
    return r;
  }
  QElapsedTimer timer;
  timer.start();
  ir::Result<GraphLayout> layout = computeGraphLayout(request);
  r.seconds = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
  if (layout.ok()) r.layout = std::move(layout.value());
  else r.error = QString::fromStdString(layout.errorText());
  return r;
}

QAction* makeAction(QWidget* owner, const QString& text, const QList<QKeySequence>& keys) {
  auto* a = new QAction(text, owner);
  a->setShortcuts(keys);
  a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  owner->addAction(a);
  return a;
}

}  // namespace

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent),
      scene_(new QGraphicsScene(this)),
      layout_(new PipelineJob(this, PipelineJob::OnDestruction::Detach)) {
  setScene(scene_);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::NoDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setBackgroundBrush(QColor(0xFF, 0xFF, 0xFF));
  setFocusPolicy(Qt::StrongFocus);
  connect(scene_, &QGraphicsScene::selectionChanged, this, &GraphView::sceneSelectionChanged);

  zoomIn_ = makeAction(this, tr("Zoom In"), {QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence(Qt::CTRL | Qt::Key_Plus)});
  zoomOut_ = makeAction(this, tr("Zoom Out"), {QKeySequence(Qt::CTRL | Qt::Key_Minus)});
  resetZoom_ = makeAction(this, tr("Actual Size"), {QKeySequence(Qt::CTRL | Qt::Key_0)});
  fit_ = makeAction(this, tr("Fit Graph"), {QKeySequence(Qt::Key_F)});
  expandAll_ = makeAction(this, tr("Expand Fused Groups"), {});
  collapseAll_ = makeAction(this, tr("Collapse Fused Groups"), {});
  connect(zoomIn_, &QAction::triggered, this, &GraphView::zoomIn);
  connect(zoomOut_, &QAction::triggered, this, &GraphView::zoomOut);
  connect(resetZoom_, &QAction::triggered, this, &GraphView::resetZoom);
  connect(fit_, &QAction::triggered, this, &GraphView::fitToView);
  foldLayers_ = makeAction(this, tr("Fold Repeated Layers"), {});
  unfoldLayers_ = makeAction(this, tr("Unfold Layers"), {});
  foldLayers_->setToolTip(tr("Show each repeated layer (encoder layer, block) as one box"));
  unfoldLayers_->setToolTip(tr("Show every operator of every layer"));
  connect(foldLayers_, &QAction::triggered, this, [this] { setAllLayersFolded(true); });
  connect(unfoldLayers_, &QAction::triggered, this, [this] { setAllLayersFolded(false); });
  connect(expandAll_, &QAction::triggered, this, [this] { setAllFusedGroupsExpanded(true); });
  connect(collapseAll_, &QAction::triggered, this, [this] { setAllFusedGroupsExpanded(false); });
}

// A layout still running finishes on its worker (Graphviz cannot be
// interrupted); the detached job drops its result once the view is gone.
// The scene is a child QObject deleted after this class's members: it must
// not call back while its items go.
GraphView::~GraphView() { disconnect(scene_, nullptr, this, nullptr); }

void GraphView::setGraph(std::shared_ptr<const ir::Graph> graph) {
  matches_.clear();
  current_ = -1;
  hasPendingSelection_ = false;
  anchorIndex_ = -1;
  graph_ = std::move(graph);
  layers_ = graph_ ? findRepeatedLayers(*graph_) : std::vector<RepeatedLayer>{};
  folded_.clear();
  if (graph_ && graph_->numNodes() > kFoldLayersAbove)
    for (const RepeatedLayer& l : layers_) folded_.insert(l.prefix);
  foldLayers_->setEnabled(!layers_.empty());
  unfoldLayers_->setEnabled(!layers_.empty());
  rebuildDisplay(-1, false);
}

void GraphView::rebuildDisplay(int centreNode, bool keepSelection) {
  // The selection is by node id and outlives the boxes (not the graph).
  const QList<int> selection = keepSelection ? selectedNodes() : QList<int>();
  programmaticSelection_ = true;
  scene_->clear();
  programmaticSelection_ = false;
  nodeItems_.clear();
  edgeItems_.clear();
  expanded_.clear();
  std::vector<RepeatedLayer> folded;
  for (const RepeatedLayer& l : layers_)
    if (folded_.count(l.prefix)) folded.push_back(l);
  display_ = graph_ ? buildGraphDisplay(*graph_, folded) : GraphDisplay{};
  if (!selection.isEmpty()) selectNodes(selection);  // pending until the layout
  centreAfterLayout_ = centreNode;
  scene_->setSceneRect(QRectF());
  if (!graph_) {
    layout_->cancel();  // drop any layout in flight
    return;
  }
  requestLayout(-1);
}

void GraphView::requestLayout(int anchorIndex) {
  anchorIndex_ = anchorIndex;
  if (anchorIndex >= 0 && anchorIndex < static_cast<int>(nodeItems_.size()))
    anchorOffset_ = mapToScene(viewport()->rect().center()) - nodeItems_[static_cast<size_t>(anchorIndex)]->centre();
  LayoutRequest request = makeLayoutRequest(display_, [&](const DisplayNode& n) {
    const int index = static_cast<int>(&n - display_.nodes.data());
    return GraphNodeItem::measure(n, expanded_.contains(index));
  });
  emit layoutStarted(static_cast<int>(request.nodes.size()));
  layout_->start<LayoutJobResult>(
      tr("Laying out the graph"),
      [request = std::move(request)](const pipeline::Control& control) { return runLayout(request, control); },
      [this](LayoutJobResult& r) { layoutDone(r); });
}

void GraphView::layoutDone(const LayoutJobResult& r) {
  if (r.skipped) return;  // superseded (the job delivers only the newest)
  if (!r.layout) {
    emit layoutFailed(r.error);
    return;
  }
  applyLayout(*r.layout);
  emit layoutFinished(r.seconds);
}

void GraphView::createItems() {
  nodeItems_.reserve(display_.nodes.size());
  for (size_t i = 0; i < display_.nodes.size(); ++i) {
    auto* item = new GraphNodeItem(display_.nodes[i], static_cast<int>(i));
    item->setExpanded(expanded_.contains(static_cast<int>(i)));
    scene_->addItem(item);
    nodeItems_.push_back(item);
  }
  edgeItems_.reserve(display_.edges.size());
  // A value read by several consumers is labelled once: a fan of identical
  // shape labels right under the producer is clutter.
  QSet<ir::ValueId> labelled;
  for (const DisplayEdge& e : display_.edges) {
    const bool first = !labelled.contains(e.value);
    labelled.insert(e.value);
    auto* item = new GraphEdgeItem(e.from, e.to, first ? QString::fromStdString(e.label) : QString());
    scene_->addItem(item);
    edgeItems_.push_back(item);
  }
}

void GraphView::applyLayout(const GraphLayout& layout) {
  const bool first = nodeItems_.empty();
  if (first) createItems();
  if (layout.nodes.size() != nodeItems_.size() || layout.edges.size() != edgeItems_.size()) {
    emit layoutFailed(tr("graph layout: the layout does not match the graph shown"));
    return;
  }
  for (size_t i = 0; i < nodeItems_.size(); ++i) {
    const NodePlacement& p = layout.nodes[i];
    nodeItems_[i]->place(QPointF(p.x, p.y), QSizeF(p.width, p.height));
  }
  for (size_t i = 0; i < edgeItems_.size(); ++i) edgeItems_[i]->setRoute(layout.edges[i]);
  scene_->setSceneRect(QRectF(0, 0, layout.width, layout.height).adjusted(-kMargin, -kMargin, kMargin, kMargin));

  if (first) {
    applySearchMarks();
    if (hasPendingSelection_) {
      hasPendingSelection_ = false;
      selectNodes(pendingSelection_);
    }
    emphasiseEdges();
    // Fit when that stays readable; a big graph starts at 100 % on its top.
    fitToView();
    if (zoom() < kReadableZoom) {
      setZoom(1.0);
      if (!nodeItems_.empty()) centerOn(nodeItems_.front());
    }
    if (current_ >= 0) goToMatch(current_);
    if (centreAfterLayout_ >= 0) {
      setZoom(1.0);
      centerOnNode(centreAfterLayout_);
      centreAfterLayout_ = -1;
    }
  } else if (anchorIndex_ >= 0 && anchorIndex_ < static_cast<int>(nodeItems_.size())) {
    centerOn(nodeItems_[static_cast<size_t>(anchorIndex_)]->centre() + anchorOffset_);
  }
}

GraphNodeItem* GraphView::operatorItem(int nodeId) const {
  const int index = display_.indexOfNode(nodeId);
  if (index < 0 || index >= static_cast<int>(nodeItems_.size())) return nullptr;
  return nodeItems_[static_cast<size_t>(index)];
}

QList<int> GraphView::selectedNodes() const {
  QList<int> ids;
  if (nodeItems_.empty() && hasPendingSelection_) return pendingSelection_;
  for (GraphNodeItem* item : nodeItems_) {
    if (!item->isSelected()) continue;
    if (item->isOperator()) ids << item->node().id;
    else if (item->isLayer())
      for (ir::NodeId id : item->node().layerNodes) ids << id;
  }
  return ids;
}

void GraphView::selectNodes(const QList<int>& nodeIds) {
  if (nodeItems_.empty()) {
    // Not drawn yet: remember it for when the layout arrives.
    pendingSelection_.clear();
    for (int id : nodeIds)
      if (display_.indexOfNode(id) >= 0 && !pendingSelection_.contains(id)) pendingSelection_ << id;
    hasPendingSelection_ = true;
    return;
  }
  programmaticSelection_ = true;
  scene_->clearSelection();
  GraphNodeItem* first = nullptr;
  for (int id : nodeIds) {
    if (GraphNodeItem* item = operatorItem(id)) {  // a folded layer's box for its operators
      item->setSelected(true);
      if (!first) first = item;
    }
  }
  programmaticSelection_ = false;
  emphasiseEdges();
  if (first && !mapToScene(viewport()->rect()).boundingRect().contains(first->sceneBoundingRect()))
    centerOn(first);
}

void GraphView::sceneSelectionChanged() {
  if (programmaticSelection_) return;
  emphasiseEdges();
  emit nodeSelected(selectedNodes());
}

void GraphView::emphasiseEdges() {
  for (GraphEdgeItem* e : edgeItems_) {
    const bool on = nodeItems_[static_cast<size_t>(e->from())]->isSelected() ||
                    nodeItems_[static_cast<size_t>(e->to())]->isSelected();
    e->setEmphasised(on);
  }
}

void GraphView::centerOnNode(int nodeId) {
  if (GraphNodeItem* item = operatorItem(nodeId)) centerOn(item);
}

QRectF GraphView::nodeRect(int nodeId) const {
  GraphNodeItem* item = operatorItem(nodeId);
  return item ? item->mapRectToScene(item->shape().boundingRect()) : QRectF();
}

// ---- search ---------------------------------------------------------------

int GraphView::search(const QString& query) {
  matches_.clear();
  current_ = -1;
  if (graph_ && !query.trimmed().isEmpty())
    for (ir::NodeId id : findNodes(*graph_, query.toStdString())) matches_ << id;
  if (!matches_.isEmpty()) current_ = 0;
  applySearchMarks();
  if (current_ >= 0) goToMatch(current_);
  else emit searchChanged(0, -1);
  return static_cast<int>(matches_.size());
}

void GraphView::applySearchMarks() {
  for (GraphNodeItem* item : nodeItems_) {
    item->setMatched(false);
    item->setCurrentMatch(false);
  }
  for (int id : matches_)
    if (GraphNodeItem* item = operatorItem(id)) item->setMatched(true);
}

void GraphView::goToMatch(int index) {
  if (matches_.isEmpty()) return;
  const int n = static_cast<int>(matches_.size());
  index = ((index % n) + n) % n;
  if (GraphNodeItem* old = current_ >= 0 && current_ < n ? operatorItem(matches_[current_]) : nullptr)
    old->setCurrentMatch(false);
  current_ = index;
  if (GraphNodeItem* item = operatorItem(matches_[current_])) {
    item->setCurrentMatch(true);
    centerOn(item);
  }
  emit searchChanged(n, current_);
}

void GraphView::nextMatch() { goToMatch(current_ + 1); }
void GraphView::previousMatch() { goToMatch(current_ - 1); }

// ---- fused groups -----------------------------------------------------------

bool GraphView::isFusedGroup(int nodeId) const {
  const int index = display_.indexOfNode(nodeId);
  return index >= 0 && display_.nodes[static_cast<size_t>(index)].isFusedGroup();
}

bool GraphView::isFusedGroupExpanded(int nodeId) const {
  const int index = display_.indexOfNode(nodeId);
  return index >= 0 && expanded_.contains(index);
}

void GraphView::setFusedGroupExpanded(int nodeId, bool expanded) {
  const int index = display_.indexOfNode(nodeId);
  if (index < 0 || !display_.nodes[static_cast<size_t>(index)].isFusedGroup()) return;
  if (expanded_.contains(index) == expanded) return;
  if (expanded) expanded_.insert(index);
  else expanded_.remove(index);
  // Show it at once (over its neighbours); the relayout then makes room.
  if (index < static_cast<int>(nodeItems_.size())) nodeItems_[static_cast<size_t>(index)]->setExpanded(expanded);
  requestLayout(index);
}

void GraphView::setAllFusedGroupsExpanded(bool expanded) {
  bool changed = false;
  for (size_t i = 0; i < display_.nodes.size(); ++i) {
    if (!display_.nodes[i].isFusedGroup()) continue;
    const int index = static_cast<int>(i);
    if (expanded_.contains(index) == expanded) continue;
    if (expanded) expanded_.insert(index);
    else expanded_.remove(index);
    if (i < nodeItems_.size()) nodeItems_[i]->setExpanded(expanded);
    changed = true;
  }
  if (changed) requestLayout(-1);
}

void GraphView::toggleFused(GraphNodeItem* item) {
  setFusedGroupExpanded(item->node().id, !item->isExpanded());
}

// ---- repeated layers --------------------------------------------------------

void GraphView::setLayerFolded(const std::string& prefix, bool folded) {
  const auto it = std::find_if(layers_.begin(), layers_.end(), [&](const RepeatedLayer& l) { return l.prefix == prefix; });
  if (it == layers_.end() || isLayerFolded(prefix) == folded) return;
  if (folded) folded_.insert(prefix);
  else folded_.erase(prefix);
  // Unfolded, the person wants to read its operators: start at its first.
  rebuildDisplay(folded ? -1 : it->nodes.front());
}

void GraphView::setAllLayersFolded(bool folded) {
  std::set<std::string> want;
  if (folded)
    for (const RepeatedLayer& l : layers_) want.insert(l.prefix);
  if (want == folded_) return;
  folded_ = std::move(want);
  rebuildDisplay(-1);
}

// ---- zoom and pan -----------------------------------------------------------

double GraphView::zoom() const { return transform().m11(); }

void GraphView::setZoom(double z, bool underMouse) {
  z = std::clamp(z, kMinZoom, kMaxZoom);
  const double factor = z / zoom();
  if (std::fabs(factor - 1.0) < 1e-9) return;
  const ViewportAnchor old = transformationAnchor();
  setTransformationAnchor(underMouse ? QGraphicsView::AnchorUnderMouse : QGraphicsView::AnchorViewCenter);
  scale(factor, factor);
  setTransformationAnchor(old);
  emit zoomChanged(zoom());
}

void GraphView::zoomIn() { setZoom(zoom() * kZoomStep); }
void GraphView::zoomOut() { setZoom(zoom() / kZoomStep); }
void GraphView::resetZoom() { setZoom(1.0); }

void GraphView::fitToView() {
  const QRectF r = scene_->itemsBoundingRect();
  if (r.isEmpty()) return;
  fitInView(r.adjusted(-10, -10, 10, 10), Qt::KeepAspectRatio);
  // Small graphs are not blown up past actual size.
  if (zoom() > 1.0) setZoom(1.0);
  if (zoom() < kMinZoom) setZoom(kMinZoom);
  centerOn(r.center());
  emit zoomChanged(zoom());
}

void GraphView::wheelEvent(QWheelEvent* event) {
  // Shift/Alt + wheel keeps scrolling; a plain wheel zooms at the cursor.
  if (event->modifiers() & (Qt::ShiftModifier | Qt::AltModifier)) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  setZoom(zoom() * std::pow(1.15, steps), true);
  event->accept();
}

GraphNodeItem* GraphView::nodeItemAt(const QPoint& viewportPos) const {
  for (QGraphicsItem* item : items(viewportPos))
    if (item->type() == GraphNodeItem::Type) return static_cast<GraphNodeItem*>(item);
  return nullptr;
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  GraphNodeItem* item = nodeItemAt(event->position().toPoint());
  if (item && event->button() == Qt::LeftButton) {
    const QPointF local = item->mapFromScene(mapToScene(event->position().toPoint()));
    if (item->toggleRect().contains(local)) {
      toggleFused(item);
      event->accept();
      return;
    }
  }
  if (!item && event->button() == Qt::LeftButton) {
    panning_ = true;
    panMoved_ = false;
    panStart_ = panLast_ = event->position().toPoint();
    viewport()->setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
  if (panning_) {
    const QPoint p = event->position().toPoint();
    const QPoint delta = p - panLast_;
    panLast_ = p;
    if ((p - panStart_).manhattanLength() > 3) panMoved_ = true;
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    event->accept();
    return;
  }
  QGraphicsView::mouseMoveEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_ && event->button() == Qt::LeftButton) {
    panning_ = false;
    viewport()->unsetCursor();
    // A click on the background (no drag) clears the selection.
    if (!panMoved_ && !scene_->selectedItems().isEmpty()) scene_->clearSelection();
    event->accept();
    return;
  }
  QGraphicsView::mouseReleaseEvent(event);
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  GraphNodeItem* item = nodeItemAt(event->position().toPoint());
  if (item && event->button() == Qt::LeftButton) {
    if (item->node().isFusedGroup()) toggleFused(item);
    else if (item->isLayer()) setLayerFolded(item->node().name, false);
    else if (item->isOperator()) emit nodeActivated(item->node().id);
    event->accept();
    return;
  }
  QGraphicsView::mouseDoubleClickEvent(event);
}

}  // namespace rammer::viz
