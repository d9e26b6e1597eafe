#include "viz/widgets/timeline_view.h"

#include <QAction>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "viz/models/release_later.h"
#include "viz/widgets/timeline_tooltip.h"

namespace rammer::viz {

namespace {

constexpr double kHitSlopPx = 2;       // hover/click tolerance around tiny boxes
constexpr double kScrollUnits = 1000;  // horizontal scroll bar steps per visible span

}  // namespace

TimelineView::TimelineView(QWidget* parent)
    : QAbstractScrollArea(parent), primary_(std::make_shared<TimelineModel>()), zoom_(new TimelineZoom(this)),
      folds_(new TimelineFolds(this)) {
  setFocusPolicy(Qt::StrongFocus);
  viewport()->setMouseTracking(true);
  viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setMinimumSize(kHeaderWidth + 100, kRulerHeight + 60);
  zoom_->setAnchor([this] { return anchorTime(); });
  connect(zoom_, &TimelineZoom::changed, this, &TimelineView::onWindowChanged);
  updateExtent();
  fitAll();
}

TimelineView::~TimelineView() = default;

// ---- data -------------------------------------------------------------------

void TimelineView::setTrace(std::shared_ptr<const sim::Trace> trace) {
  setModel(std::make_shared<TimelineModel>(std::move(trace)));
}

void TimelineView::setModel(std::shared_ptr<const TimelineModel> model) {
  replaceLater(primary_, model ? std::move(model) : std::make_shared<TimelineModel>());
  secondaryTrace_.reset();
  releaseLater(secondary_);
  comparison_.reset();
  selectedOps_.clear();
  rebuildSelectionLayers();
  highlights_.clear();
  drag_.reset();
  area_.reset();
  areaSummary_.reset();
  verticalScrollBar()->setValue(0);
  updateExtent();
  fitAll();
}

void TimelineView::setComparisonTrace(std::shared_ptr<const sim::Trace> trace) {
  secondaryTrace_ = std::move(trace);
  comparison_.reset();
  if (secondaryTrace_) {
    comparison_ = compareTraces(primary_->trace(), *secondaryTrace_);
    // Saturate the slip colours at twice the typical slip, so one outlier
    // does not wash the rest out.
    slipScaleUs_ = std::max(2 * comparison_->meanAbsSlipUs, 1e-3);
  }
  rebuildComparisonModel();
  updateExtent();
  fitAll();
}

void TimelineView::setCompareMode(CompareMode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  rebuildComparisonModel();
  syncScrollBars();
  viewport()->update();
}

void TimelineView::setSlipColouring(bool on) {
  slipColouring_ = on;
  viewport()->update();
}

void TimelineView::rebuildComparisonModel() {
  secondary_.reset();
  if (secondaryTrace_) {
    // Overlay draws the comparison in the main trace's rows, so its lanes
    // follow them; side by side it keeps its own (e.g. measured SMs).
    secondary_ = std::make_shared<TimelineModel>(secondaryTrace_, mode_ == CompareMode::Overlay ? primary_.get() : nullptr,
                                                 primary_->foldedSms());
  }
  rebuildSelectionLayers();
  if (area_ && area_->section == Section::Comparison) clearAreaSelection();
}

void TimelineView::rebuildSelectionLayers() {
  selectedPrimary_ = {};
  selectedSecondary_ = {};
  if (selectedOps_.empty()) return;
  selectedPrimary_ = primary_->tasksOfOps(selectedOps_);
  if (secondary_) selectedSecondary_ = secondary_->tasksOfOps(selectedOps_);
}

void TimelineView::selectOps(const QList<int>& ops) {
  selectedOps_.assign(ops.begin(), ops.end());
  std::sort(selectedOps_.begin(), selectedOps_.end());
  selectedOps_.erase(std::unique(selectedOps_.begin(), selectedOps_.end()), selectedOps_.end());
  rebuildSelectionLayers();
  viewport()->update();
}

void TimelineView::highlightTasks(const QList<schedule::RTask>& tasks) {
  highlights_.set(primary_->trace(), {tasks.begin(), tasks.end()}, false);
  viewport()->update();
}

void TimelineView::highlightPath(const QList<schedule::RTask>& path) {
  highlights_.set(primary_->trace(), {path.begin(), path.end()}, true);
  viewport()->update();
}

QList<int> TimelineView::selectedOps() const { return QList<int>(selectedOps_.begin(), selectedOps_.end()); }

void TimelineView::zoomToSelectedOps() {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const sim::TaskEvent& e : primary_->trace().tasks) {
    if (std::binary_search(selectedOps_.begin(), selectedOps_.end(), e.task.op)) {
      lo = std::min(lo, e.startUs);
      hi = std::max(hi, e.endUs);
    }
  }
  if (hi > lo) {
    const double margin = 0.05 * (hi - lo);
    setVisibleRange(lo - margin, hi + margin);
  }
}

const TimelineModel* TimelineView::modelOf(Section section) const {
  return section == Section::Primary ? primary_.get() : secondary_.get();
}

// ---- view window --------------------------------------------------------------

void TimelineView::updateExtent() {
  const double lo = secondary_ ? std::min(primary_->startUs(), secondary_->startUs()) : primary_->startUs();
  const double hi = secondary_ ? std::max(primary_->endUs(), secondary_->endUs()) : primary_->endUs();
  zoom_->setExtent(lo, hi);
}

void TimelineView::onWindowChanged() {
  if (!syncingScrollBars_) syncScrollBars();
  viewport()->update();
  emit visibleRangeChanged(zoom_->startUs(), zoom_->endUs());
}

void TimelineView::setVisibleRange(double t0Us, double t1Us) { zoom_->setVisibleRange(t0Us, t1Us); }
void TimelineView::fitAll() { zoom_->fitAll(); }
void TimelineView::zoomBy(double factor, double anchorUs) { zoom_->zoomBy(factor, anchorUs); }
void TimelineView::panBy(double fraction) { zoom_->panBy(fraction); }

void TimelineView::setLaneHeight(int px) {
  laneHeight_ = std::clamp(px, 1, 64);
  syncScrollBars();
  viewport()->update();
}

double TimelineView::anchorTime() const {
  if (mousePos_ && mousePos_->x() >= kHeaderWidth && viewport()->rect().contains(*mousePos_))
    return timeAtX(mousePos_->x());
  return zoom_->startUs() + 0.5 * zoom_->spanUs();
}

void TimelineView::syncScrollBars() {
  syncingScrollBars_ = true;
  const double span = zoom_->spanUs();
  const double unit = span / kScrollUnits;
  const double steps = std::ceil((zoom_->extentEndUs() - zoom_->extentStartUs() - span) / unit - 1e-6);
  QScrollBar* h = horizontalScrollBar();
  h->setRange(0, static_cast<int>(std::clamp(steps, 0.0, 2e9)));
  h->setPageStep(static_cast<int>(kScrollUnits));
  h->setSingleStep(static_cast<int>(kScrollUnits * kPanStep / 4));
  h->setValue(static_cast<int>(std::lround((zoom_->startUs() - zoom_->extentStartUs()) / unit)));
  QScrollBar* v = verticalScrollBar();
  const int visible = std::max(0, viewport()->height() - kRulerHeight);
  v->setRange(0, std::max(0, geometry().contentHeight() - visible));
  v->setPageStep(std::max(1, visible));
  v->setSingleStep(std::max(1, 3 * laneHeight_));
  syncingScrollBars_ = false;
}

void TimelineView::scrollContentsBy(int dx, int /*dy*/) {
  if (!syncingScrollBars_ && dx != 0) {
    syncingScrollBars_ = true;  // the bar moved the window, not the other way round
    zoom_->setStart(zoom_->extentStartUs() + horizontalScrollBar()->value() * (zoom_->spanUs() / kScrollUnits));
    syncingScrollBars_ = false;
  }
  viewport()->update();
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  syncScrollBars();  // the time window stays; only its scale changes
}

// ---- geometry ------------------------------------------------------------------

TimelineGeometry TimelineView::geometry() const {
  return TimelineGeometry(viewport()->width(), viewport()->height(), verticalScrollBar()->value(), laneHeight_,
                          zoom_->startUs(), zoom_->spanUs(), *primary_, secondary_.get(),
                          mode_ == CompareMode::Overlay);
}

int TimelineView::plotWidth() const { return geometry().plotWidth(); }
double TimelineView::timeAtX(int x) const { return geometry().timeAtX(x); }
double TimelineView::xOfTime(double tUs) const { return geometry().xOfTime(tUs); }

std::optional<int> TimelineView::yOfLane(Section section, int lane) const {
  const TimelineModel* model = modelOf(section);
  if (!model) return std::nullopt;
  return geometry().yOfLane(section, lane, model->numLanes());
}

const TimelineModel* TimelineView::modelAt(const TimelineGeometry::RowHit& row) const {
  const bool overlay = mode_ == CompareMode::Overlay && secondary_;
  const bool comparison = overlay ? row.lowerHalf : row.section == Section::Comparison;
  const TimelineModel* model = comparison ? secondary_.get() : primary_.get();
  return model && row.lane < model->numLanes() ? model : nullptr;
}

// The event under `pos` in the plot, and its model.
TimelineHit TimelineView::hitAt(const QPoint& pos, const TimelineModel** model) const {
  const TimelineGeometry g = geometry();
  const auto row = g.rowAt(pos.y());
  *model = row && pos.x() >= kHeaderWidth ? modelAt(*row) : nullptr;
  if (!*model) return {};
  return (*model)->hitTest(row->lane, g.timeAtX(pos.x()) + 0.5 * g.usPerPx(), kHitSlopPx * g.usPerPx());
}

// ---- painting ------------------------------------------------------------------

void TimelineView::paintEvent(QPaintEvent* /*event*/) {
  TimelineScene scene;
  scene.primary = primary_.get();
  scene.secondary = secondary_.get();
  scene.hasSelection = !selectedOps_.empty();
  scene.selectedPrimary = &selectedPrimary_;
  scene.selectedSecondary = &selectedSecondary_;
  scene.comparison = comparison_ ? &*comparison_ : nullptr;
  scene.slipColouring = slipColouring_;
  scene.slipScaleUs = slipScaleUs_;
  scene.highlighted = &highlights_.indices();
  scene.arrows = &highlights_.arrows();
  if (drag_.kind == TimelineDrag::Kind::Task && drag_.drop) scene.drop = TimelineScene::Drop{drag_.drop->lane, drag_.drop->x};
  scene.area = area_;
  scene.areaSummary = areaSummary_ ? &*areaSummary_ : nullptr;
  scene.font = font();
  QPainter p(viewport());
  painter_.paint(p, geometry(), scene);
}

// ---- interaction ---------------------------------------------------------------

int32_t TimelineView::primaryTaskAt(const QPoint& pos) const {
  const TimelineModel* model = nullptr;
  const TimelineHit hit = hitAt(pos, &model);
  const auto row = geometry().rowAt(pos.y());
  if (model != primary_.get() || !row || row->section != Section::Primary || row->lowerHalf) return -1;
  return hit.kind == TimelineHit::Kind::Task ? hit.index : -1;
}

std::optional<TimelineDrag::DropTarget> TimelineView::dropTargetAt(const QPoint& pos) const {
  const auto row = geometry().rowAt(pos.y());
  if (!row || row->section != Section::Primary || row->lane >= primary_->numLanes() ||
      primary_->lane(row->lane).folded())  // no single vEU to drop on
    return std::nullopt;
  return TimelineDrag::DropTarget{row->lane, primary_->lane(row->lane).veu, std::max(kHeaderWidth, pos.x())};
}

void TimelineView::finishTaskDrag(const QPoint& pos, int32_t task, bool wholeOperator) {
  const auto target = dropTargetAt(pos);
  if (!target || task < 0) return;
  const auto order = taskDropOrder(primary_->trace(), task, target->veu, timeAtX(target->x), wholeOperator);
  if (!order) return;  // dropped where it was
  const sim::TaskEvent& moved = primary_->trace().tasks[static_cast<size_t>(task)];
  emit taskDropped(moved.task, moved.program, target->veu, *order, wholeOperator);
}

QString TimelineView::tooltipTextAt(const QPoint& pos) const {
  const auto row = geometry().rowAt(pos.y());
  if (!row) return {};
  const TimelineModel* model = modelAt(*row);
  if (!model) return {};
  if (pos.x() < kHeaderWidth) return describeLane(*model, row->lane);
  const TimelineHit hit = hitAt(pos, &model);
  if (!hit) return {};
  return describeHit(*model, hit, model == secondary_.get(), comparison_ ? &*comparison_ : nullptr,
                     secondary_ != nullptr);
}

bool TimelineView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(event);
    const QString text = tooltipTextAt(he->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
      event->ignore();
    } else {
      QToolTip::showText(he->globalPos(), text, viewport());
    }
    return true;
  }
  if (event->type() == QEvent::Leave) mousePos_.reset();
  return QAbstractScrollArea::viewportEvent(event);
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  if (QAction* a = event->modifiers() == Qt::NoModifier ? zoom_->actionForKey(event->key()) : nullptr) {
    a->trigger();
  } else if (event->key() == Qt::Key_Escape) {
    clearAreaSelection();
  } else {
    QAbstractScrollArea::keyPressEvent(event);
    return;
  }
  event->accept();
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const QPoint angle = event->angleDelta();
  const auto mods = event->modifiers();
  if (mods & Qt::ControlModifier) {
    zoomBy(std::pow(kZoomStep, angle.y() / 120.0), timeAtX(static_cast<int>(event->position().x())));
  } else if (mods & Qt::ShiftModifier) {
    const int d = angle.y() != 0 ? angle.y() : angle.x();  // some platforms turn Shift+wheel horizontal
    panBy(-d / 120.0 * kPanStep / 2);
  } else if (angle.x() != 0 && angle.y() == 0) {
    panBy(-angle.x() / 120.0 * kPanStep / 2);
  } else {
    QAbstractScrollArea::wheelEvent(event);
    return;
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  using Kind = TimelineDrag::Kind;
  if (event->button() == Qt::LeftButton) {
    const Kind kind = (event->modifiers() & Qt::ShiftModifier) && pos.x() >= kHeaderWidth ? Kind::Area : Kind::Pending;
    drag_.press(pos, zoom_->startUs(), verticalScrollBar()->value(), kind,
                kind == Kind::Pending ? primaryTaskAt(pos) : -1, event->modifiers().testFlag(Qt::AltModifier));
  } else if (event->button() == Qt::MiddleButton || event->button() == Qt::RightButton) {
    drag_.press(pos, zoom_->startUs(), verticalScrollBar()->value(), Kind::Pan, -1, false);
  }
  event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  mousePos_ = pos;
  drag_.moved(pos);
  switch (drag_.kind) {
    case TimelineDrag::Kind::Task:
      drag_.drop = dropTargetAt(pos);
      viewport()->setCursor(drag_.drop ? Qt::DragMoveCursor : Qt::ForbiddenCursor);
      viewport()->update();
      break;
    case TimelineDrag::Kind::Pan:
      verticalScrollBar()->setValue(drag_.startScrollY - (pos.y() - drag_.start.y()));
      zoom_->setStart(drag_.startT0Us - (pos.x() - drag_.start.x()) * (zoom_->spanUs() / plotWidth()));
      break;
    case TimelineDrag::Kind::Area:
      setAreaFromDrag(drag_.start, pos);
      break;
    default:
      break;
  }
  event->accept();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (drag_.kind == TimelineDrag::Kind::Task) {
    viewport()->unsetCursor();
    const bool whole = drag_.pressedAlt || event->modifiers().testFlag(Qt::AltModifier);
    const int32_t task = drag_.pressedTask;
    drag_.reset();  // a slot may open a dialog; the drag is over either way
    viewport()->update();
    finishTaskDrag(pos, task, whole);
  } else if (drag_.kind == TimelineDrag::Kind::Area) {
    setAreaFromDrag(drag_.start, pos);
    if (area_) setAreaSelection(area_->section, area_->t0Us, area_->t1Us, area_->firstLane, area_->lastLane);
  } else if (drag_.kind == TimelineDrag::Kind::Pending) {
    clickAt(pos, event->modifiers() & Qt::ControlModifier);
  }
  drag_.reset();
  event->accept();
}

// A click selects the operator of the rTask under the mouse (Ctrl: toggles
// it in the selection); a click on nothing clears the selection.
void TimelineView::clickAt(const QPoint& pos, bool toggle) {
  const TimelineModel* model = nullptr;
  const TimelineHit hit = hitAt(pos, &model);
  if (area_) clearAreaSelection();
  if (hit.kind == TimelineHit::Kind::Task) {
    const int op = model->trace().tasks[static_cast<size_t>(hit.index)].task.op;
    QList<int> ops = selectedOps();
    if (!toggle)
      ops = {op};
    else if (ops.contains(op))
      ops.removeAll(op);
    else
      ops.append(op);
    selectOps(ops);
    emit opsSelected(selectedOps());
  } else if (!selectedOps_.empty()) {
    selectOps({});
    emit opsSelected({});
  }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event) {
  const auto row = geometry().rowAt(event->position().toPoint().y());
  if (event->position().x() < kHeaderWidth && row && row->section == Section::Primary && row->lane < primary_->numLanes()) {
    folds_->toggle(primary_->lane(row->lane).sm);  // the SM's name: fold or unfold it
    return;
  }
  const TimelineModel* model = nullptr;
  const TimelineHit hit = hitAt(event->position().toPoint(), &model);
  if (!hit) return;
  const auto& t = model->trace();
  const auto i = static_cast<size_t>(hit.index);
  const auto [s, e] = hit.kind == TimelineHit::Kind::Task ? std::pair{t.tasks[i].startUs, t.tasks[i].endUs}
                                                          : std::pair{t.barriers[i].startUs, t.barriers[i].endUs};
  const double margin = std::max(0.5 * (e - s), 1e-3);
  setVisibleRange(s - margin, e + margin);
  event->accept();
}

// ---- area selection ------------------------------------------------------------

void TimelineView::setAreaFromDrag(const QPoint& a, const QPoint& b) {
  const TimelineGeometry g = geometry();
  const auto row = g.rowAt(std::max(a.y(), kRulerHeight));
  if (!row) return;
  const TimelineGeometry::SectionRows* s = g.sectionOf(row->section);
  if (!s) return;
  const int contentY = b.y() - kRulerHeight + g.scrollY;
  const int other = std::clamp((contentY - s->lanesY) / laneHeight_, 0, std::max(0, s->model->numLanes() - 1));
  const int x0 = std::max(kHeaderWidth, std::min(a.x(), b.x()));
  const int x1 = std::max(kHeaderWidth, std::max(a.x(), b.x()));
  area_ = TimelineAreaBox{row->section, g.timeAtX(x0), g.timeAtX(x1), std::min(row->lane, other),
                          std::max(row->lane, other)};
  areaSummary_.reset();  // computed when the drag ends
  viewport()->update();
}

void TimelineView::setAreaSelection(Section section, double t0Us, double t1Us, int firstLane, int lastLane) {
  const TimelineModel* model = modelOf(section);
  if (!model || model->numLanes() == 0) {
    clearAreaSelection();
    return;
  }
  areaSummary_ = summarizeArea(*model, t0Us, t1Us, firstLane, lastLane);
  area_ = TimelineAreaBox{section, areaSummary_->t0Us, areaSummary_->t1Us, areaSummary_->firstLane,
                          areaSummary_->lastLane};
  viewport()->update();
  emit areaSelectionChanged();
}

void TimelineView::clearAreaSelection() {
  if (!area_ && !areaSummary_) return;
  area_.reset();
  areaSummary_.reset();
  viewport()->update();
  emit areaSelectionChanged();
}

QString TimelineView::areaSummaryText() const {
  if (!areaSummary_ || !area_) return {};
  const TimelineModel* model = modelOf(area_->section);
  return model ? formatAreaSummary(*areaSummary_, *model, 10) : QString();
}

}  // namespace rammer::viz
