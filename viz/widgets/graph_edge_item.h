#pragma once
// One edge of the graph view: the spline dot routed, an arrow head at the
// consumer, and the value's shape written beside the spline's midpoint.
// Edges of a selected node are drawn darker and thicker; long edges of big
// graphs that dot did not route (EdgeRoute::direct) are dashed. Zoomed out
// past readable text, the edge is a one-pixel polyline through the spline's
// knots: stroking thousands of antialiased Béziers kept the UI thread busy
// for 100+ ms a frame on lstm_tc's graph.
#include <QGraphicsItem>
#include <QPainterPath>
#include <QString>

#include "viz/models/graph_layout.h"

namespace rammer::viz {

class GraphEdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 0x7a2 };

  GraphEdgeItem(int from, int to, const QString& label);

  void setRoute(const EdgeRoute& route);
  void setEmphasised(bool emphasised);

  int from() const { return from_; }
  int to() const { return to_; }
  const QString& label() const { return label_; }
  const QPainterPath& path() const { return path_; }
  bool isDirect() const { return direct_; }

  int type() const override { return Type; }
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  int from_, to_;
  QString label_;
  QPainterPath path_;
  QPolygonF arrow_;
  QPolygonF coarse_;  // the spline's knots, drawn when zoomed far out
  QPointF labelAt_;  // left end of the label's baseline
  QRectF bounds_;
  bool emphasised_ = false;
  bool direct_ = false;
};

}  // namespace rammer::viz
