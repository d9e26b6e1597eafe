#pragma once
// The vEU timeline: one lane per vEU grouped by SM, a time ruler with the
// program boundaries, rTasks coloured by operator, barrier waits hatched
// grey, and a second trace (a measurement) either in its own section below
// the first or overlaid in the lower half of each lane, coloured by slip.
//
// The parts live in their own files: TimelinePainter paints (level of
// detail: at most one mark per pixel column per lane), TimelineZoom holds
// the visible window and the zoom/pan actions, TimelineGeometry maps pixels
// to lanes and times, TimelineDrag tracks a drag, timeline_palette.h has
// the colours. This class keeps the data and turns events into calls.
//
// Keys (Perfetto): W/S zoom in/out at the mouse, A/D pan, F fit, Esc clears
// the area selection. Mouse: Ctrl+wheel zooms, Shift+wheel pans, wheel
// scrolls lanes, drag on empty space pans, Shift+drag selects an area
// (summary of busy %, idle time and per-op time; in overlay mode, of the main
// trace), click selects an rTask's operator, double-click zooms to an rTask.
// Dragging an rTask of the main trace (Alt: its whole operator) shows a drop
// marker on the lane under the mouse and, on release, emits taskDropped: the
// view only proposes the move, the editor decides whether it is applied.
//
// Ops are indices into Plan::ops (= sim::RTask::op); a graph view that
// speaks ir::NodeId maps through PlannedOp::node. selectOps() does not emit
// opsSelected, so the two views can be wired both ways without ping-pong.
#include <QAbstractScrollArea>
#include <QList>
#include <QRect>
#include <QString>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/sim/trace.h"
#include "viz/models/timeline_area_summary.h"
#include "viz/models/timeline_highlights.h"
#include "viz/models/timeline_model.h"
#include "viz/models/trace_comparison.h"
#include "viz/widgets/timeline_drag.h"
#include "viz/widgets/timeline_geometry.h"
#include "viz/widgets/timeline_painter.h"
#include "viz/widgets/timeline_folds.h"
#include "viz/widgets/timeline_zoom.h"

namespace rammer::viz {

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT

 public:
  enum class CompareMode { SideBySide, Overlay };

  using Section = TimelineSection;
  using PaintStats = TimelinePaintStats;

  static constexpr double kZoomStep = TimelineZoom::kZoomStep;
  static constexpr double kPanStep = TimelineZoom::kPanStep;
  static constexpr int kHeaderWidth = TimelineGeometry::kHeaderWidth;
  static constexpr int kRulerHeight = TimelineGeometry::kRulerHeight;
  static constexpr int kSectionHeaderHeight = TimelineGeometry::kSectionHeaderHeight;

  explicit TimelineView(QWidget* parent = nullptr);
  ~TimelineView() override;

  // The trace to show; fits the view to it. Clears the comparison, the
  // selection and the area.
  void setTrace(std::shared_ptr<const sim::Trace> trace);
  // The same with a model built elsewhere: a million-rTask model takes a
  // few hundred ms to build, so a window builds it off the UI thread (the
  // model is Qt-Core-only and immutable) and hands it over here.
  void setModel(std::shared_ptr<const TimelineModel> model);
  // A second trace (nullptr clears it), compared rTask by rTask.
  void setComparisonTrace(std::shared_ptr<const sim::Trace> trace);
  void setCompareMode(CompareMode mode);
  CompareMode compareMode() const { return mode_; }
  // Colour the comparison's rTasks by slip (default) or by operator.
  void setSlipColouring(bool on);
  bool slipColouring() const { return slipColouring_; }

  const TimelineModel& model() const { return *primary_; }
  const TimelineModel* comparisonModel() const { return secondary_.get(); }
  const TraceComparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }

  // Highlights the rTasks of these ops (others are faded). Does not emit
  // opsSelected, so a graph view and the timeline can mirror each other.
  void selectOps(const QList<int>& ops);
  QList<int> selectedOps() const;
  // Outlines these rTasks of the main trace (e.g. the ones a refused edit
  // would break); an empty list clears. A new trace clears them too.
  void highlightTasks(const QList<schedule::RTask>& tasks);
  QList<schedule::RTask> highlightedTasks() const { return {highlights_.tasks().begin(), highlights_.tasks().end()}; }
  // Outlines a path of rTasks, first to last, with an arrow from each one's
  // end to the next one's start: a critical path's hand-offs and waits.
  void highlightPath(const QList<schedule::RTask>& path);
  int pathArrows() const { return static_cast<int>(highlights_.arrows().size()); }
  // Fits the visible time to the selected ops' rTasks.
  void zoomToSelectedOps();

  // The visible time window, in trace microseconds, and the actions that
  // move it (W/S/A/D/F).
  TimelineZoom* zoom() const { return zoom_; }
  TimelineFolds* folds() const { return folds_; }
  double visibleStartUs() const { return zoom_->startUs(); }
  double visibleEndUs() const { return zoom_->endUs(); }
  void setVisibleRange(double t0Us, double t1Us);
  void fitAll();
  // Scales the visible span by `factor` keeping `anchorUs` at its pixel.
  void zoomBy(double factor, double anchorUs);
  // Moves the window by `fraction` of its width (positive: later).
  void panBy(double fraction);

  void setLaneHeight(int px);
  int laneHeight() const { return laneHeight_; }

  // Area selection within one section (lanes inclusive).
  void setAreaSelection(Section section, double t0Us, double t1Us, int firstLane, int lastLane);
  void clearAreaSelection();
  const std::optional<AreaSummary>& areaSummary() const { return areaSummary_; }
  QString areaSummaryText() const;

  // Geometry, in viewport coordinates (for tests and the main window).
  int plotWidth() const;
  double timeAtX(int x) const;
  double xOfTime(double tUs) const;
  // Vertical centre of a lane row (overlay: of its half), or nullopt when the
  // lane is not in this view.
  std::optional<int> yOfLane(Section section, int lane) const;
  // The tooltip for a viewport position; empty where there is no event.
  QString tooltipTextAt(const QPoint& viewportPos) const;

  const PaintStats& lastPaintStats() const { return painter_.stats(); }

 signals:
  // The user picked ops in the timeline (click on an rTask; empty: cleared).
  void opsSelected(const QList<int>& ops);
  void areaSelectionChanged();
  void visibleRangeChanged(double t0Us, double t1Us);
  // An rTask of the main trace was dragged onto vEU `targetVeu` of its
  // program `program`. `targetOrderHint` counts the rTasks of that program
  // on the target vEU that start before the drop point (the dragged ones
  // excluded): a TaskPin order. `wholeOperator`: Alt was held (move every
  // rTask of task.op). Not emitted when an rTask is dropped where it is.
  void taskDropped(schedule::RTask task, int program, int targetVeu, int targetOrderHint, bool wholeOperator);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  bool viewportEvent(QEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;

 private:
  TimelineGeometry geometry() const;
  const TimelineModel* modelOf(Section section) const;
  // The model under a row (overlay: by half), or null.
  const TimelineModel* modelAt(const TimelineGeometry::RowHit& row) const;
  TimelineHit hitAt(const QPoint& pos, const TimelineModel** model) const;
  void updateExtent();
  void onWindowChanged();
  double anchorTime() const;
  void syncScrollBars();
  void rebuildComparisonModel();
  void rebuildSelectionLayers();
  void setAreaFromDrag(const QPoint& a, const QPoint& b);
  int32_t primaryTaskAt(const QPoint& pos) const;
  std::optional<TimelineDrag::DropTarget> dropTargetAt(const QPoint& pos) const;
  void finishTaskDrag(const QPoint& pos, int32_t task, bool wholeOperator);
  void clickAt(const QPoint& pos, bool toggle);

  std::shared_ptr<const TimelineModel> primary_;
  std::shared_ptr<const TimelineModel> secondary_;  // built for the compare mode
  std::shared_ptr<const sim::Trace> secondaryTrace_;
  std::optional<TraceComparison> comparison_;
  CompareMode mode_ = CompareMode::SideBySide;
  bool slipColouring_ = true;
  double slipScaleUs_ = 1;

  std::vector<int32_t> selectedOps_;  // sorted, unique
  TimelineLaneIndex selectedPrimary_;
  TimelineLaneIndex selectedSecondary_;

  std::optional<TimelineAreaBox> area_;
  std::optional<AreaSummary> areaSummary_;

  TimelineZoom* zoom_;
  TimelineFolds* folds_;
  int laneHeight_ = 14;
  bool syncingScrollBars_ = false;

  TimelineDrag drag_;
  std::optional<QPoint> mousePos_;  // last position over the viewport

  TimelineHighlights highlights_;

  TimelinePainter painter_;
};

}  // namespace rammer::viz
