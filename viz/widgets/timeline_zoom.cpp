#include "viz/widgets/timeline_zoom.h"

#include <QAction>
#include <algorithm>
#include <cmath>

namespace rammer::viz {

TimelineZoom::TimelineZoom(QObject* parent) : QObject(parent) {
  auto make = [this](const QString& name, const QString& text, Qt::Key key, auto slot) {
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    a->setToolTip(tr("%1 (%2)").arg(text, QKeySequence(key).toString()));
    a->setShortcut(QKeySequence(key));
    a->setShortcutContext(Qt::WidgetShortcut);
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  zoomIn_ = make(QStringLiteral("timelineZoomIn"), tr("Zoom In"), Qt::Key_W, [this] { zoomBy(kZoomStep, anchor()); });
  zoomOut_ =
      make(QStringLiteral("timelineZoomOut"), tr("Zoom Out"), Qt::Key_S, [this] { zoomBy(1 / kZoomStep, anchor()); });
  panLeft_ = make(QStringLiteral("timelinePanLeft"), tr("Pan Left"), Qt::Key_A, [this] { panBy(-kPanStep); });
  panRight_ = make(QStringLiteral("timelinePanRight"), tr("Pan Right"), Qt::Key_D, [this] { panBy(kPanStep); });
  fit_ = make(QStringLiteral("timelineFit"), tr("Fit All"), Qt::Key_F, [this] { fitAll(); });
}

QAction* TimelineZoom::actionForKey(int key) const {
  switch (key) {
    case Qt::Key_W: return zoomIn_;
    case Qt::Key_S: return zoomOut_;
    case Qt::Key_A: return panLeft_;
    case Qt::Key_D: return panRight_;
    case Qt::Key_F: return fit_;
    default: return nullptr;
  }
}

void TimelineZoom::setExtent(double startUs, double endUs) {
  lo_ = std::isfinite(startUs) ? startUs : 0;
  hi_ = std::isfinite(endUs) && endUs > lo_ ? endUs : lo_ + 1;
  clampAndEmit();
}

void TimelineZoom::clampAndEmit() {
  const double extent = hi_ - lo_;
  const double minSpan = std::max(1e-3, extent * 1e-6);
  if (!std::isfinite(span_)) span_ = extent;
  span_ = std::clamp(span_, minSpan, extent);
  if (!std::isfinite(t0_)) t0_ = lo_;
  t0_ = std::clamp(t0_, lo_, lo_ + extent - span_);
  emit changed(t0_, t0_ + span_);
}

void TimelineZoom::setVisibleRange(double t0Us, double t1Us) {
  if (t1Us < t0Us) std::swap(t0Us, t1Us);
  t0_ = t0Us;
  span_ = t1Us - t0Us;
  clampAndEmit();
}

void TimelineZoom::setStart(double t0Us) {
  t0_ = t0Us;
  clampAndEmit();
}

void TimelineZoom::fitAll() { setVisibleRange(lo_, hi_); }

void TimelineZoom::zoomBy(double factor, double anchorUs) {
  if (!(factor > 0) || !std::isfinite(anchorUs)) return;
  const double frac = (anchorUs - t0_) / span_;
  span_ *= factor;
  t0_ = anchorUs - frac * span_;
  clampAndEmit();
}

void TimelineZoom::panBy(double fraction) {
  t0_ += fraction * span_;
  clampAndEmit();
}

}  // namespace rammer::viz
