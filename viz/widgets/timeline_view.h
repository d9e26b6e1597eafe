#pragma once
// The vEU timeline: one lane per vEU grouped by SM, a time ruler with the
// program boundaries, rTasks coloured by operator, barrier waits hatched
// grey, and a second trace (a measurement) either in its own section below
// the first or overlaid in the lower half of each lane, coloured by slip.
//
// Painting is level-of-detail: each visible lane asks its TimelineLaneIndex
// for at most one mark per pixel column, and marks are written straight
// into a raster, so a frame costs O(visible lanes x pixel columns) however
// many rTasks the trace holds; labels are drawn only where they fit.
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
#include "viz/models/timeline_model.h"
#include "viz/models/trace_comparison.h"
#include "viz/widgets/timeline_raster.h"

namespace rammer::viz {

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT

 public:
  enum class CompareMode { SideBySide, Overlay };

  // Which trace a row belongs to: the main one (usually the prediction) or
  // the comparison (usually the measurement).
  enum class Section { Primary, Comparison };

  // What the last paint did; tests assert on these counts, never on time.
  struct PaintStats {
    int64_t marks = 0;    // boxes written (rTask, barrier and selection marks)
    int64_t queries = 0;  // level-of-detail queries (one per lane and layer)
    int64_t lanes = 0;    // lane rows painted
    int64_t labels = 0;   // op names drawn inside boxes
    int64_t highlights = 0;  // outlines drawn around highlightTasks() rTasks
    bool dropMarker = false; // a task drag's drop marker was drawn
    int plotWidth = 0;    // pixel columns of the time axis
  };

  // Keyboard steps (Perfetto-like): W/S scale the visible span by
  // kZoomStep / 1/kZoomStep, A/D move it by kPanStep of its width.
  static constexpr double kZoomStep = 0.8;
  static constexpr double kPanStep = 0.2;
  static constexpr int kHeaderWidth = 112;
  static constexpr int kRulerHeight = 24;
  static constexpr int kSectionHeaderHeight = 18;

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
  QList<schedule::RTask> highlightedTasks() const { return highlighted_; }
  // Fits the visible time to the selected ops' rTasks.
  void zoomToSelectedOps();

  // The visible time window, in trace microseconds.
  double visibleStartUs() const { return t0_; }
  double visibleEndUs() const { return t0_ + spanUs_; }
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

  const PaintStats& lastPaintStats() const { return stats_; }

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
  struct SectionLayout {
    Section section;
    const TimelineModel* model;
    int headerY;  // content y of the section's header band
    int lanesY;   // content y of its first lane
  };
  struct RowHit {
    Section section = Section::Primary;
    int lane = -1;
    bool lowerHalf = false;  // overlay: the comparison's half
  };
  struct Label {
    QRect rect;
    int32_t op;
    const TimelineModel* model;
    uint32_t fill;  // the box colour, to pick a readable text colour
  };
  struct AreaSelection {
    Section section;
    double t0Us, t1Us;
    int firstLane, lastLane;
  };
  enum class Drag { None, Pending, Pan, Area, Task };
  struct DropTarget {
    int lane = -1;
    int veu = -1;
    int x = 0;  // viewport x of the drop point
  };

  std::vector<SectionLayout> sections() const;
  int contentHeight() const;
  int contentYToViewport(int contentY) const;
  std::optional<RowHit> rowAt(int viewportY) const;
  const TimelineModel* modelOf(Section section) const;
  double extentStartUs() const;
  double extentEndUs() const;
  double anchorTime() const;
  void clampView();
  void viewChanged();
  void syncScrollBars();
  void rebuildComparisonModel();
  void rebuildSelectionLayers();
  void setAreaFromDrag(const QPoint& a, const QPoint& b);
  // The main trace's rTask under a viewport point (trace().tasks index), or -1.
  int32_t primaryTaskAt(const QPoint& pos) const;
  std::optional<DropTarget> dropTargetAt(const QPoint& pos) const;
  void finishTaskDrag(const QPoint& pos, bool wholeOperator);
  // Viewport y range [top, bottom) of a main-trace lane row.
  std::pair<int, int> primaryRowSpan(int lane) const;
  void paintHighlights();
  void paintDropMarker();

  void paintLanes(const SectionLayout& s, int viewTop, int viewBottom, std::vector<Label>& labels);
  enum class Layer { Barriers, Tasks, Selection };
  void paintLaneMarks(const TimelineModel& model, const TimelineLaneIndex& index, int lane, int y0, int y1,
                      Layer layer, bool comparisonLayer, std::vector<Label>* labels);
  void paintProgramLines(const SectionLayout& s, int viewTop, int viewBottom);
  void paintHeader(QPainter& p, const SectionLayout& s, int viewTop, int viewBottom) const;
  void paintRuler(QPainter& p) const;
  void paintArea(QPainter& p) const;
  uint32_t markColor(const TimelineModel& model, const TimelineMark& m, bool comparisonLayer,
                     bool selectionLayer) const;
  // Rows the section draws (overlay: the larger of the two traces' lanes).
  int sectionLanes(const SectionLayout& s) const;

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

  std::optional<AreaSelection> area_;
  std::optional<AreaSummary> areaSummary_;

  double t0_ = 0;
  double spanUs_ = 1;
  int laneHeight_ = 14;
  bool syncingScrollBars_ = false;

  Drag drag_ = Drag::None;
  QPoint dragStart_;
  double dragT0_ = 0;
  int dragScrollY_ = 0;
  std::optional<QPoint> mousePos_;  // last position over the viewport
  int32_t pressedTask_ = -1;         // main-trace rTask under the press
  bool pressedAlt_ = false;
  std::optional<DropTarget> drop_;   // while dragging an rTask

  QList<schedule::RTask> highlighted_;
  std::vector<int32_t> highlightedIndex_;  // their trace().tasks indices

  TimelineRaster raster_;
  LodQuery lod_;                     // this paint's pixel mapping
  std::vector<TimelineMark> marks_;  // reused by every lane query
  PaintStats stats_;
};

}  // namespace rammer::viz
