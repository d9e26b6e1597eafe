#include "viz/widgets/graph_edge_item.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <cmath>

#include "viz/widgets/graph_node_item.h"

namespace rammer::viz {

namespace {

QFont labelFont() {
  QFont f;
  f.setPixelSize(9);
  return f;
}

QPointF qp(const LayoutPoint& p) { return {p.x, p.y}; }

}  // namespace

GraphEdgeItem::GraphEdgeItem(int from, int to, const QString& label) : from_(from), to_(to), label_(label) {
  setZValue(0);
  setFlag(ItemIsSelectable, false);
}

void GraphEdgeItem::setRoute(const EdgeRoute& route) {
  prepareGeometryChange();
  path_ = QPainterPath();
  arrow_.clear();
  coarse_.clear();
  const auto& pts = route.points;
  if (!pts.empty()) {
    path_.moveTo(qp(pts[0]));
    coarse_ << qp(pts[0]);
    for (size_t i = 1; i + 2 < pts.size(); i += 3) {
      path_.cubicTo(qp(pts[i]), qp(pts[i + 1]), qp(pts[i + 2]));
      coarse_ << qp(pts[i + 2]);
    }
    if (route.hasArrow) {
      coarse_ << qp(route.arrowTip);
      // dot ends the spline where the arrow's base starts.
      const QPointF tip = qp(route.arrowTip);
      const QPointF base = path_.currentPosition();
      QPointF dir = tip - base;
      const double len = std::hypot(dir.x(), dir.y());
      if (len > 1e-6) {
        dir /= len;
        const QPointF normal(-dir.y(), dir.x());
        const double half = std::min(4.0, len * 0.5);
        arrow_ << tip << base + normal * half << base - normal * half;
      }
    }
  }
  direct_ = route.direct;
  // A direct edge may run past many boxes: its label sits by the consumer.
  const QPointF mid = path_.isEmpty() ? QPointF() : path_.pointAtPercent(direct_ ? 0.85 : 0.5);
  labelAt_ = mid + QPointF(4, 3);
  const QFontMetricsF fm(labelFont());
  const QRectF labelRect(labelAt_.x(), labelAt_.y() - fm.ascent(), fm.horizontalAdvance(label_), fm.height());
  bounds_ = path_.boundingRect().united(arrow_.boundingRect()).united(labelRect).adjusted(-3, -3, 3, 3);
}

void GraphEdgeItem::setEmphasised(bool emphasised) {
  if (emphasised == emphasised_) return;
  emphasised_ = emphasised;
  setZValue(emphasised ? 0.5 : 0);
  update();
}

void GraphEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  const QColor colour = emphasised_ ? QColor(0x20, 0x20, 0x20) : QColor(0x80, 0x80, 0x80);
  if (lod < GraphNodeItem::kTextFromZoom) {
    // A cosmetic, aliased, solid polyline: the raster engine's fast path.
    // Direct edges stay told apart by a lighter grey instead of dashes.
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(QPen(direct_ && !emphasised_ ? QColor(0xB0, 0xB0, 0xB0) : colour, emphasised_ ? 2.0 : 0.0));
    painter->drawPolyline(coarse_);
    return;
  }
  QPen pen(colour, emphasised_ ? 2.0 : 1.0, direct_ ? Qt::DashLine : Qt::SolidLine);
  // Zoomed out, a cosmetic pen (its width in pixels) takes the raster
  // engine's line stroker instead of filling a sub-pixel outline.
  pen.setCosmetic(lod < 1.0);
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path_);
  if (!arrow_.isEmpty()) {
    painter->setPen(Qt::NoPen);
    painter->setBrush(colour);
    painter->drawPolygon(arrow_);
  }
  // Shape labels only where they are readable.
  if (lod < 0.6 || label_.isEmpty()) return;
  painter->setFont(labelFont());
  painter->setPen(emphasised_ ? QColor(0x10, 0x10, 0x10) : QColor(0x55, 0x55, 0x55));
  painter->drawText(labelAt_, label_);
}

}  // namespace rammer::viz
