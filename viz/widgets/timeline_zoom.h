#pragma once
// The visible time window of a timeline, as an object that owns the actions
// driving it (as Hotspot's FilterAndZoomStack): the window [start, end)
// inside the traces' extent, and Zoom In (W), Zoom Out (S), Pan Left (A),
// Pan Right (D) and Fit (F), Perfetto's keys. Zooming keeps an anchor time
// at its place: the owner says which (the time under the mouse).
//
// The window never leaves the extent and never gets narrower than 1 ns or
// a millionth of the extent (which keeps a scroll bar's integer range small).
#include <QObject>
#include <functional>

class QAction;

namespace rammer::viz {

class TimelineZoom : public QObject {
  Q_OBJECT

 public:
  // W/S scale the visible span by kZoomStep / 1/kZoomStep, A/D move it by
  // kPanStep of its width.
  static constexpr double kZoomStep = 0.8;
  static constexpr double kPanStep = 0.2;

  explicit TimelineZoom(QObject* parent = nullptr);

  // The traces' time span; an empty one still gets a 1 us axis. Keeps the
  // window inside it.
  void setExtent(double startUs, double endUs);
  double extentStartUs() const { return lo_; }
  double extentEndUs() const { return hi_; }

  double startUs() const { return t0_; }
  double spanUs() const { return span_; }
  double endUs() const { return t0_ + span_; }

  void setVisibleRange(double t0Us, double t1Us);
  // Moves the window to start at `t0Us`, keeping its span (scroll bars, drags).
  void setStart(double t0Us);
  void fitAll();
  // Scales the span by `factor` keeping `anchorUs` at its place in the window.
  void zoomBy(double factor, double anchorUs);
  // Moves the window by `fraction` of its width (positive: later).
  void panBy(double fraction);

  // Where W and S zoom around; the window's middle when unset.
  void setAnchor(std::function<double()> anchor) { anchor_ = std::move(anchor); }

  QAction* zoomInAction() const { return zoomIn_; }
  QAction* zoomOutAction() const { return zoomOut_; }
  QAction* panLeftAction() const { return panLeft_; }
  QAction* panRightAction() const { return panRight_; }
  QAction* fitAction() const { return fit_; }
  // The action of one of the keys W, S, A, D, F (Qt::Key), or null.
  QAction* actionForKey(int key) const;

 signals:
  void changed(double startUs, double endUs);

 private:
  void clampAndEmit();
  double anchor() const { return anchor_ ? anchor_() : t0_ + 0.5 * span_; }

  double lo_ = 0, hi_ = 1;
  double t0_ = 0, span_ = 1;
  std::function<double()> anchor_;
  QAction* zoomIn_;
  QAction* zoomOut_;
  QAction* panLeft_;
  QAction* panRight_;
  QAction* fit_;
};

}  // namespace rammer::viz
