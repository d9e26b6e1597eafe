#pragma once
// Exports that draw widgets (so they run on the UI thread): the graph scene
// as SVG or PNG, the timeline as PNG. Each returns an empty string on
// success, else the reason, naming the file.
#include <QString>

class QGraphicsScene;
class QWidget;

namespace rammer::studio {

QString writeSceneSvg(QGraphicsScene* scene, const QString& path);
// At 2x, scaled down so the longer side stays within 16384 pixels.
QString writeScenePng(QGraphicsScene* scene, const QString& path);
QString writeWidgetPng(QWidget* widget, const QString& path);

}  // namespace rammer::studio
