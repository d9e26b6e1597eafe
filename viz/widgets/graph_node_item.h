#pragma once
// One box of the graph view: an operator as a rounded box in its category's
// colour with its op type and name (Netron's look), or a graph input/output
// as a light pill. A fused group (FusedElementwise that replaced several
// ops) has a +/− toggle; expanded, it lists the fused ops and the
// expression below its header. A folded repeated layer is a dashed box with
// its scope and operator count.
#include <QFont>
#include <QGraphicsItem>
#include <QRectF>

#include "viz/models/graph_display.h"
#include "viz/models/graph_layout.h"

namespace rammer::viz {

class GraphNodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 0x7a1 };

  // Below this scale the 12 px titles would be under 6 px: unreadable noise,
  // so boxes go without text (and edges without curves, GraphEdgeItem).
  static constexpr double kTextFromZoom = 0.5;

  GraphNodeItem(const DisplayNode& node, int displayIndex);

  // The box size for `node` in the given state: what the layout is asked to
  // reserve. Uses the fonts the item paints with.
  static LayoutSize measure(const DisplayNode& node, bool expanded);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  const DisplayNode& node() const { return node_; }
  int displayIndex() const { return index_; }
  bool isOperator() const { return node_.kind == DisplayNodeKind::Operator; }
  bool isLayer() const { return node_.kind == DisplayNodeKind::Layer; }

  // Places the box centred on `centre` with the given size.
  void place(QPointF centre, QSizeF size);
  QPointF centre() const { return pos() + box_.center(); }

  bool isExpanded() const { return expanded_; }
  // Resizes in place (centred) so the change shows before the relayout.
  void setExpanded(bool expanded);
  // The +/− toggle of a fused group, in item coordinates (empty otherwise).
  QRectF toggleRect() const;

  void setMatched(bool matched);        // a search hit
  void setCurrentMatch(bool current);   // the hit the search is on

 private:
  void paintOperator(QPainter* p, double lod);
  void paintTerminal(QPainter* p, double lod);

  DisplayNode node_;
  int index_;
  QRectF box_;  // item coordinates, origin at the top-left
  bool expanded_ = false;
  bool matched_ = false;
  bool current_ = false;
};

}  // namespace rammer::viz
