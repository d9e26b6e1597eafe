#include "app/studio/widget_export.h"

#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>
#include <algorithm>

namespace rammer::studio {

namespace {
constexpr double kMaxSide = 16384;
}

QString writeSceneSvg(QGraphicsScene* scene, const QString& path) {
  if (!scene || scene->items().isEmpty()) return QStringLiteral("the graph is empty (is a model open and laid out?)");
  const QRectF rect = scene->itemsBoundingRect().adjusted(-10, -10, 10, 10);
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(rect.size().toSize());
  svg.setViewBox(QRectF(QPointF(0, 0), rect.size()));
  svg.setTitle(QStringLiteral("Rammer Studio graph"));
  QPainter painter;
  if (!painter.begin(&svg)) return QStringLiteral("%1: cannot write the SVG file").arg(path);
  scene->render(&painter, QRectF(QPointF(0, 0), rect.size()), rect);
  painter.end();
  return {};
}

QString writeScenePng(QGraphicsScene* scene, const QString& path) {
  if (!scene || scene->items().isEmpty()) return QStringLiteral("the graph is empty (is a model open and laid out?)");
  const QRectF rect = scene->itemsBoundingRect().adjusted(-10, -10, 10, 10);
  const double scale = std::min(2.0, kMaxSide / std::max(rect.width(), rect.height()));
  QImage image((rect.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setRenderHint(QPainter::TextAntialiasing);
  scene->render(&painter, QRectF(QPointF(0, 0), QSizeF(image.size())), rect);
  painter.end();
  if (!image.save(path, "PNG")) return QStringLiteral("%1: cannot write the PNG file").arg(path);
  return {};
}

QString writeWidgetPng(QWidget* widget, const QString& path) {
  if (!widget) return QStringLiteral("nothing to draw");
  const QPixmap pixmap = widget->grab();
  if (pixmap.isNull()) return QStringLiteral("the view could not be drawn");
  if (!pixmap.save(path, "PNG")) return QStringLiteral("%1: cannot write the PNG file").arg(path);
  return {};
}

}  // namespace rammer::studio
