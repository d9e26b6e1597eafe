#include "viz/widgets/timeline_view.h"

#include <QColor>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <set>

#include "viz/models/timeline_palette.h"
#include "viz/models/timeline_time_axis.h"

namespace rammer::viz {

namespace {

constexpr uint32_t kBackground = 0xFFFFFF;
constexpr uint32_t kGroupShade = 0xF4F5F7;    // every other SM group
constexpr uint32_t kGroupLine = 0xD5D8DD;     // between SM groups
constexpr uint32_t kProgramLine = 0x4A5A70;   // program boundaries
constexpr uint32_t kSectionBand = 0xE4E8EE;   // section header band
constexpr uint32_t kSelectionFrame = 0x101010;
constexpr uint32_t kHighlightFrame = 0xE0201A;  // rTasks a refused edit would break
constexpr uint32_t kDropMarker = 0x1E64D8;      // where a dragged rTask would land
constexpr int kHighlightPad = 2;                // outline this far outside the box
constexpr double kFadeUnselected = 0.72;
constexpr int kMinLabelWidth = 36;
constexpr int kMinSeparatedWidth = 4;  // boxes this wide get a darker left edge
constexpr int kClickSlop = 3;          // pixels a press may move and still be a click
constexpr double kHitSlopPx = 2;       // hover/click tolerance around tiny boxes
constexpr double kScrollUnits = 1000;  // horizontal scroll bar steps per visible span

QColor rgb(uint32_t c) { return QColor::fromRgb(c); }

QString signedDuration(double us) {
  const QString d = formatDuration(us);
  return us > 0 ? QStringLiteral("+") + d : d;
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent), primary_(std::make_shared<TimelineModel>()) {
  setFocusPolicy(Qt::StrongFocus);
  viewport()->setMouseTracking(true);
  viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setMinimumSize(kHeaderWidth + 100, kRulerHeight + 60);
  fitAll();
}

TimelineView::~TimelineView() = default;

// ---- data -------------------------------------------------------------------

void TimelineView::setTrace(std::shared_ptr<const sim::Trace> trace) {
  setModel(std::make_shared<TimelineModel>(std::move(trace)));
}

void TimelineView::setModel(std::shared_ptr<const TimelineModel> model) {
  primary_ = model ? std::move(model) : std::make_shared<TimelineModel>();
  secondaryTrace_.reset();
  secondary_.reset();
  comparison_.reset();
  selectedOps_.clear();
  rebuildSelectionLayers();
  highlighted_.clear();
  highlightedIndex_.clear();
  drop_.reset();
  pressedTask_ = -1;
  if (drag_ == Drag::Task) drag_ = Drag::None;
  area_.reset();
  areaSummary_.reset();
  verticalScrollBar()->setValue(0);
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
    secondary_ = std::make_shared<TimelineModel>(secondaryTrace_, mode_ == CompareMode::Overlay ? primary_.get() : nullptr);
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
  highlighted_ = tasks;
  highlightedIndex_.clear();
  if (!tasks.isEmpty()) {
    const std::set<schedule::RTask> wanted(tasks.begin(), tasks.end());
    const auto& events = primary_->trace().tasks;
    for (size_t i = 0; i < events.size(); ++i)
      if (wanted.count(events[i].task)) highlightedIndex_.push_back(static_cast<int32_t>(i));
  }
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

double TimelineView::extentStartUs() const {
  return secondary_ ? std::min(primary_->startUs(), secondary_->startUs()) : primary_->startUs();
}

double TimelineView::extentEndUs() const {
  const double end = secondary_ ? std::max(primary_->endUs(), secondary_->endUs()) : primary_->endUs();
  return end > extentStartUs() ? end : extentStartUs() + 1;  // an empty trace still has an axis
}

void TimelineView::clampView() {
  const double lo = extentStartUs();
  const double extent = extentEndUs() - lo;
  // Down to 1 ns across the window (and never below a millionth of the
  // trace, which keeps the scroll bar's integer range small).
  const double minSpan = std::max(1e-3, extent * 1e-6);
  if (!std::isfinite(spanUs_)) spanUs_ = extent;
  spanUs_ = std::clamp(spanUs_, minSpan, extent);
  if (!std::isfinite(t0_)) t0_ = lo;
  t0_ = std::clamp(t0_, lo, lo + extent - spanUs_);
}

void TimelineView::viewChanged() {
  syncScrollBars();
  viewport()->update();
  emit visibleRangeChanged(t0_, t0_ + spanUs_);
}

void TimelineView::setVisibleRange(double t0Us, double t1Us) {
  if (t1Us < t0Us) std::swap(t0Us, t1Us);
  t0_ = t0Us;
  spanUs_ = t1Us - t0Us;
  clampView();
  viewChanged();
}

void TimelineView::fitAll() {
  t0_ = extentStartUs();
  spanUs_ = extentEndUs() - t0_;
  clampView();
  viewChanged();
}

void TimelineView::zoomBy(double factor, double anchorUs) {
  if (!(factor > 0) || !std::isfinite(anchorUs)) return;
  const double frac = (anchorUs - t0_) / spanUs_;
  spanUs_ *= factor;
  t0_ = anchorUs - frac * spanUs_;
  clampView();
  viewChanged();
}

void TimelineView::panBy(double fraction) {
  t0_ += fraction * spanUs_;
  clampView();
  viewChanged();
}

void TimelineView::setLaneHeight(int px) {
  laneHeight_ = std::clamp(px, 1, 64);
  syncScrollBars();
  viewport()->update();
}

double TimelineView::anchorTime() const {
  if (mousePos_ && mousePos_->x() >= kHeaderWidth && viewport()->rect().contains(*mousePos_)) {
    return timeAtX(mousePos_->x());
  }
  return t0_ + 0.5 * spanUs_;
}

void TimelineView::syncScrollBars() {
  syncingScrollBars_ = true;
  const double unit = spanUs_ / kScrollUnits;
  const double steps = std::ceil((extentEndUs() - extentStartUs() - spanUs_) / unit - 1e-6);
  QScrollBar* h = horizontalScrollBar();
  h->setRange(0, static_cast<int>(std::clamp(steps, 0.0, 2e9)));
  h->setPageStep(static_cast<int>(kScrollUnits));
  h->setSingleStep(static_cast<int>(kScrollUnits * kPanStep / 4));
  h->setValue(static_cast<int>(std::lround((t0_ - extentStartUs()) / unit)));
  QScrollBar* v = verticalScrollBar();
  const int visible = std::max(0, viewport()->height() - kRulerHeight);
  v->setRange(0, std::max(0, contentHeight() - visible));
  v->setPageStep(std::max(1, visible));
  v->setSingleStep(std::max(1, 3 * laneHeight_));
  syncingScrollBars_ = false;
}

void TimelineView::scrollContentsBy(int dx, int /*dy*/) {
  if (!syncingScrollBars_ && dx != 0) {
    t0_ = extentStartUs() + horizontalScrollBar()->value() * (spanUs_ / kScrollUnits);
    clampView();
    emit visibleRangeChanged(t0_, t0_ + spanUs_);
  }
  viewport()->update();
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  syncScrollBars();  // the time window stays; only its scale changes
}

// ---- geometry ------------------------------------------------------------------

int TimelineView::plotWidth() const { return std::max(1, viewport()->width() - kHeaderWidth); }

double TimelineView::timeAtX(int x) const { return t0_ + (x - kHeaderWidth) * (spanUs_ / plotWidth()); }

double TimelineView::xOfTime(double tUs) const { return kHeaderWidth + (tUs - t0_) / (spanUs_ / plotWidth()); }

int TimelineView::sectionLanes(const SectionLayout& s) const {
  if (s.section == Section::Primary && mode_ == CompareMode::Overlay && secondary_) {
    return std::max(primary_->numLanes(), secondary_->numLanes());
  }
  return s.model->numLanes();
}

std::vector<TimelineView::SectionLayout> TimelineView::sections() const {
  std::vector<SectionLayout> out;
  out.push_back({Section::Primary, primary_.get(), 0, kSectionHeaderHeight});
  if (secondary_ && mode_ == CompareMode::SideBySide) {
    const int y = kSectionHeaderHeight + sectionLanes(out.front()) * laneHeight_;
    out.push_back({Section::Comparison, secondary_.get(), y, y + kSectionHeaderHeight});
  }
  return out;
}

int TimelineView::contentHeight() const {
  const SectionLayout last = sections().back();
  return last.lanesY + sectionLanes(last) * laneHeight_;
}

int TimelineView::contentYToViewport(int contentY) const {
  return kRulerHeight + contentY - verticalScrollBar()->value();
}

std::optional<TimelineView::RowHit> TimelineView::rowAt(int viewportY) const {
  if (viewportY < kRulerHeight) return std::nullopt;
  const int y = viewportY - kRulerHeight + verticalScrollBar()->value();
  for (const SectionLayout& s : sections()) {
    const int rel = y - s.lanesY;
    if (rel >= 0 && rel < sectionLanes(s) * laneHeight_) {
      RowHit hit{s.section, rel / laneHeight_, false};
      hit.lowerHalf = mode_ == CompareMode::Overlay && secondary_ && rel % laneHeight_ >= laneHeight_ / 2;
      return hit;
    }
  }
  return std::nullopt;
}

std::optional<int> TimelineView::yOfLane(Section section, int lane) const {
  const bool overlay = mode_ == CompareMode::Overlay && secondary_;
  const TimelineModel* model = modelOf(section);
  if (!model || lane < 0 || lane >= model->numLanes()) return std::nullopt;
  for (const SectionLayout& s : sections()) {
    if (overlay || s.section == section) {
      int y = s.lanesY + lane * laneHeight_;
      if (!overlay) {
        y += laneHeight_ / 2;
      } else {
        y += section == Section::Primary ? laneHeight_ / 4 : laneHeight_ / 2 + laneHeight_ / 4;
      }
      return contentYToViewport(y);
    }
  }
  return std::nullopt;
}

// ---- painting ------------------------------------------------------------------

uint32_t TimelineView::markColor(const TimelineModel& model, const TimelineMark& m, bool comparisonLayer,
                                 bool selectionLayer) const {
  uint32_t c = model.opColor(m.op);
  if (comparisonLayer && slipColouring_ && comparison_ && m.source >= 0 &&
      static_cast<size_t>(m.source) < comparison_->slipOfMeasured.size()) {
    c = slipColor(comparison_->slipOfMeasured[static_cast<size_t>(m.source)], slipScaleUs_);
  }
  if (!selectionLayer && !selectedOps_.empty()) c = fadeColor(c, kFadeUnselected);
  return c;
}

void TimelineView::paintLaneMarks(const TimelineModel& model, const TimelineLaneIndex& index, int lane, int y0, int y1,
                                  Layer layer, bool comparisonLayer, std::vector<Label>* labels) {
  marks_.clear();
  index.marks(lane, lod_, marks_);
  ++stats_.queries;
  stats_.marks += static_cast<int64_t>(marks_.size());
  for (const TimelineMark& m : marks_) {
    const int x0 = kHeaderWidth + m.x0;
    const int x1 = kHeaderWidth + m.x1;
    switch (layer) {
      case Layer::Barriers:
        raster_.hatch(x0, x1, y0, y1, kBarrierFill, kBarrierHatch);
        break;
      case Layer::Tasks: {
        const uint32_t c = markColor(model, m, comparisonLayer, false);
        raster_.fill(x0, x1, y0, y1, c);
        // A darker first column tells back-to-back rTasks of one op apart.
        if (!m.dense && x1 - x0 >= kMinSeparatedWidth) raster_.fill(x0, x0 + 1, y0, y1, darkenColor(c));
        if (labels && !m.dense && x1 - x0 >= kMinLabelWidth && y1 - y0 >= 11) {
          labels->push_back({QRect(x0, y0, x1 - x0, y1 - y0), m.op, &model, c});
        }
        break;
      }
      case Layer::Selection:
        raster_.fill(x0, x1, y0, y1, markColor(model, m, comparisonLayer, true));
        if (x1 - x0 >= 3 && y1 - y0 >= 3) raster_.outline(x0, x1, y0, y1, kSelectionFrame);
        break;
    }
  }
}

void TimelineView::paintLanes(const SectionLayout& s, int viewTop, int viewBottom, std::vector<Label>& labels) {
  const int width = viewport()->width();
  const int h = laneHeight_;
  const int bandY = contentYToViewport(s.headerY);
  raster_.fill(0, width, bandY, bandY + kSectionHeaderHeight, kSectionBand);

  const int lanesTop = contentYToViewport(s.lanesY);
  const int n = sectionLanes(s);
  const int first = std::max(0, (viewTop - lanesTop) / h);
  const int last = std::min(n - 1, (viewBottom - lanesTop) / h);
  const bool overlay = s.section == Section::Primary && mode_ == CompareMode::Overlay && secondary_;
  const TimelineModel& rowsModel = overlay && n > primary_->numLanes() ? *secondary_ : *s.model;
  const auto& groups = rowsModel.smGroups();
  auto group = groups.begin();

  const int padTop = h >= 6 ? 1 : 0;
  const int padBottom = h >= 4 ? 1 : 0;
  for (int lane = first; lane <= last; ++lane) {
    const int y = lanesTop + lane * h;
    while (group != groups.end() && group->firstLane + group->numLanes <= lane) ++group;
    if (group != groups.end()) {
      const auto g = group - groups.begin();
      if (g % 2 == 1) raster_.fill(kHeaderWidth, width, y, y + h, kGroupShade);
      if (group->firstLane == lane && lane > 0 && h >= 4) raster_.fill(kHeaderWidth, width, y, y + 1, kGroupLine);
    }
    ++stats_.lanes;
    const int top = y + padTop;
    const int bottom = y + h - padBottom;
    if (overlay) {
      const int mid = y + (h + 1) / 2;  // at 1 px the main trace keeps the row
      if (lane < primary_->numLanes()) {
        paintLaneMarks(*primary_, primary_->barriers(), lane, top, mid, Layer::Barriers, false, nullptr);
        paintLaneMarks(*primary_, primary_->tasks(), lane, top, mid, Layer::Tasks, false, &labels);
        if (!selectedOps_.empty()) {
          paintLaneMarks(*primary_, selectedPrimary_, lane, top, mid, Layer::Selection, false, nullptr);
        }
      }
      if (lane < secondary_->numLanes()) {
        paintLaneMarks(*secondary_, secondary_->barriers(), lane, mid, bottom, Layer::Barriers, true, nullptr);
        paintLaneMarks(*secondary_, secondary_->tasks(), lane, mid, bottom, Layer::Tasks, true, &labels);
        if (!selectedOps_.empty()) {
          paintLaneMarks(*secondary_, selectedSecondary_, lane, mid, bottom, Layer::Selection, true, nullptr);
        }
      }
    } else {
      const bool comparison = s.section == Section::Comparison;
      const TimelineLaneIndex& selected = comparison ? selectedSecondary_ : selectedPrimary_;
      paintLaneMarks(*s.model, s.model->barriers(), lane, top, bottom, Layer::Barriers, comparison, nullptr);
      paintLaneMarks(*s.model, s.model->tasks(), lane, top, bottom, Layer::Tasks, comparison, &labels);
      if (!selectedOps_.empty()) paintLaneMarks(*s.model, selected, lane, top, bottom, Layer::Selection, comparison, nullptr);
    }
  }
}

void TimelineView::paintProgramLines(const SectionLayout& s, int viewTop, int viewBottom) {
  const int top = std::max(viewTop, contentYToViewport(s.lanesY));
  const int bottom = std::min(viewBottom, contentYToViewport(s.lanesY + sectionLanes(s) * laneHeight_));
  if (top >= bottom) return;
  int lastX = -1;
  for (const sim::ProgramEvent& p : s.model->trace().programs) {
    const double xf = xOfTime(p.startUs);
    if (xf < kHeaderWidth || xf >= viewport()->width()) continue;
    const int x = static_cast<int>(xf);
    if (x == lastX) continue;  // at most one line per pixel column
    raster_.fill(x, x + 1, top, bottom, kProgramLine);
    lastX = x;
  }
}

void TimelineView::paintHeader(QPainter& p, const SectionLayout& s, int viewTop, int viewBottom) const {
  const int h = laneHeight_;
  const int lanesTop = contentYToViewport(s.lanesY);
  const int n = sectionLanes(s);
  const int bandY = contentYToViewport(s.headerY);

  // Section band: which trace this is.
  const sim::Trace& t = s.model->trace();
  QString title = QString::fromStdString(t.source.empty() ? (t.measured ? "measured" : "predicted") : t.source);
  if (!t.device.empty()) title += QStringLiteral(" · %1").arg(QString::fromStdString(t.device));
  title += QStringLiteral(" · %1 programs · %2").arg(t.programs.size()).arg(formatDuration(t.totalUs));
  if (s.section == Section::Primary && mode_ == CompareMode::Overlay && secondary_) {
    const sim::Trace& c = secondary_->trace();
    title += QStringLiteral("   (lower half: %1, coloured by slip)")
                 .arg(QString::fromStdString(c.source.empty() ? "comparison" : c.source));
  }
  if (bandY + kSectionHeaderHeight > viewTop && bandY < viewBottom) {
    p.setPen(rgb(0x303540));
    p.drawText(QRect(6, bandY, viewport()->width() - 12, kSectionHeaderHeight), Qt::AlignVCenter | Qt::AlignLeft,
               title);
  }

  const int top = std::max(viewTop, lanesTop);
  const int bottom = std::min(viewBottom, lanesTop + n * h);
  if (top >= bottom) return;
  p.fillRect(QRect(0, top, kHeaderWidth, bottom - top), rgb(0xF7F8FA));
  p.setPen(rgb(0xC0C4CC));
  p.drawLine(kHeaderWidth - 1, top, kHeaderWidth - 1, bottom);

  const bool overlay = s.section == Section::Primary && mode_ == CompareMode::Overlay && secondary_;
  const TimelineModel& rowsModel = overlay && n > primary_->numLanes() ? *secondary_ : *s.model;
  const int first = std::max(0, (viewTop - lanesTop) / h);
  const int last = std::min(n - 1, (viewBottom - lanesTop) / h);
  QFont f = font();
  f.setPixelSize(std::clamp(h - 3, 9, 12));
  p.setFont(f);
  const int textH = QFontMetrics(f).height();
  int freeY = top;  // labels below this do not overlap the previous one
  for (const SmGroup& g : rowsModel.smGroups()) {
    if (g.firstLane + g.numLanes <= first || g.firstLane > last) continue;
    const int gy = std::max(top, lanesTop + g.firstLane * h);
    if (gy >= freeY) {
      p.setPen(rgb(0x202530));
      p.drawText(QRect(4, gy, kHeaderWidth / 2, textH), Qt::AlignLeft | Qt::AlignTop,
                 g.sm >= 0 ? QStringLiteral("SM %1").arg(g.sm) : QStringLiteral("SM ?"));
      freeY = gy + textH;
    }
    if (h >= 10) {
      p.setPen(rgb(0x606570));
      const int l0 = std::max(g.firstLane, first);
      const int l1 = std::min(g.firstLane + g.numLanes - 1, last);
      for (int lane = l0; lane <= l1; ++lane) {
        p.drawText(QRect(kHeaderWidth / 2, lanesTop + lane * h, kHeaderWidth / 2 - 6, h),
                   Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("vEU %1").arg(rowsModel.lane(lane).veu));
      }
    }
  }
}

void TimelineView::paintRuler(QPainter& p) const {
  const int width = viewport()->width();
  p.fillRect(QRect(0, 0, width, kRulerHeight), rgb(0xECEEF2));
  p.setPen(rgb(0xB0B4BC));
  p.drawLine(0, kRulerHeight - 1, width, kRulerHeight - 1);
  QFont f = font();
  f.setPixelSize(10);
  p.setFont(f);

  const double usPerPx = spanUs_ / plotWidth();
  const double step = niceTickStep(usPerPx * 90);
  p.setClipRect(QRect(kHeaderWidth, 0, width - kHeaderWidth, kRulerHeight));
  for (double t : tickTimes(t0_, t0_ + spanUs_, step)) {
    const int x = static_cast<int>(xOfTime(t));
    p.setPen(rgb(0x606570));
    p.drawLine(x, kRulerHeight - 7, x, kRulerHeight - 1);
    p.drawText(x + 3, kRulerHeight - 9, formatTickLabel(t, step));
  }
  // Program starts: a marker, and "P<n>" where there is room.
  int lastLabelRight = -1;
  for (const sim::ProgramEvent& pe : primary_->trace().programs) {
    const double xf = xOfTime(pe.startUs);
    if (xf < kHeaderWidth || xf >= width) continue;
    const int x = static_cast<int>(xf);
    p.setPen(rgb(kProgramLine));
    p.drawLine(x, kRulerHeight - 4, x, kRulerHeight - 1);
    if (x > lastLabelRight + 4) {
      const QString label = QStringLiteral("P%1").arg(pe.program);
      p.drawText(x + 2, kRulerHeight - 1 - 1, label);
      lastLabelRight = x + 2 + QFontMetrics(f).horizontalAdvance(label);
    }
  }
  p.setClipping(false);
  p.setPen(rgb(0x303540));
  p.drawText(QRect(4, 0, kHeaderWidth - 8, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
             QStringLiteral("⟷ %1").arg(formatDuration(spanUs_)));
}

void TimelineView::paintArea(QPainter& p) const {
  if (!area_) return;
  const bool overlay = mode_ == CompareMode::Overlay && secondary_;
  for (const SectionLayout& s : sections()) {
    if (s.section != area_->section && !overlay) continue;
    const int x0 = static_cast<int>(std::max<double>(kHeaderWidth, xOfTime(area_->t0Us)));
    const int x1 = static_cast<int>(std::min<double>(viewport()->width(), xOfTime(area_->t1Us)));
    const int y0 = contentYToViewport(s.lanesY + area_->firstLane * laneHeight_);
    const int y1 = contentYToViewport(s.lanesY + (area_->lastLane + 1) * laneHeight_);
    if (x1 <= x0 || y1 <= kRulerHeight || y0 >= viewport()->height()) return;  // scrolled out of view
    const QRect r(QPoint(x0, std::max(y0, kRulerHeight)), QPoint(x1 - 1, y1 - 1));
    p.fillRect(r, QColor(60, 120, 220, 45));
    p.setPen(QColor(40, 90, 190));
    p.drawRect(r.adjusted(0, 0, -1, -1));
    if (areaSummary_) {
      const QString text = formatAreaSummary(*areaSummary_, *s.model, 3);
      QFont f = font();
      f.setPixelSize(11);
      p.setFont(f);
      QRect box = QFontMetrics(f).boundingRect(QRect(0, 0, 1000, 1000), Qt::AlignLeft | Qt::AlignTop, text);
      box.adjust(-4, -3, 4, 3);
      box.moveTopLeft(QPoint(std::min(r.left() + 4, viewport()->width() - box.width() - 2), r.top() + 4));
      p.fillRect(box, QColor(255, 255, 255, 235));
      p.setPen(QColor(40, 90, 190));
      p.drawRect(box.adjusted(0, 0, -1, -1));
      p.setPen(rgb(0x202530));
      p.drawText(box.adjusted(4, 3, -4, -3), Qt::AlignLeft | Qt::AlignTop, text);
    }
    return;
  }
}

void TimelineView::paintEvent(QPaintEvent* /*event*/) {
  stats_ = {};
  stats_.plotWidth = plotWidth();
  const QSize size = viewport()->size();
  lod_ = LodQuery{t0_, spanUs_ / plotWidth(), 0, plotWidth()};
  raster_.reset(size, kBackground);

  std::vector<Label> labels;
  const auto layout = sections();
  for (const SectionLayout& s : layout) {
    paintLanes(s, kRulerHeight, size.height(), labels);
    paintProgramLines(s, kRulerHeight, size.height());
  }
  paintHighlights();
  paintDropMarker();

  QPainter p(viewport());
  p.drawImage(0, 0, raster_.image());
  if (!labels.empty()) {
    QFont f = font();
    f.setPixelSize(std::clamp(laneHeight_ - 4, 8, 11));
    p.setFont(f);
    const QFontMetrics fm(f);
    for (const Label& l : labels) {
      const int room = l.rect.width() - 6;
      const QString text = fm.elidedText(l.model->opName(l.op), Qt::ElideRight, room);
      if (text.isEmpty() || text == QStringLiteral("…")) continue;
      p.setPen(rgb(isDarkColor(l.fill) ? 0xFFFFFF : 0x111111));
      p.drawText(l.rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
      ++stats_.labels;
    }
  }
  paintArea(p);
  for (const SectionLayout& s : layout) paintHeader(p, s, kRulerHeight, size.height());
  paintRuler(p);
}

std::pair<int, int> TimelineView::primaryRowSpan(int lane) const {
  const int y = contentYToViewport(kSectionHeaderHeight + lane * laneHeight_);
  const bool overlay = mode_ == CompareMode::Overlay && secondary_;
  return {y, overlay ? y + (laneHeight_ + 1) / 2 : y + laneHeight_};
}

void TimelineView::paintHighlights() {
  const int width = viewport()->width();
  const int height = viewport()->height();
  const auto& events = primary_->trace().tasks;
  for (int32_t i : highlightedIndex_) {
    const sim::TaskEvent& e = events[static_cast<size_t>(i)];
    const auto [top, bottom] = primaryRowSpan(primary_->laneOfTask(i));
    if (bottom <= kRulerHeight || top >= height) continue;
    const double fx0 = xOfTime(e.startUs);
    const double fx1 = xOfTime(e.endUs);
    if (fx1 < kHeaderWidth - kHighlightPad || fx0 > width + kHighlightPad) continue;
    // Never thinner than the frame itself, so a tiny rTask still shows.
    const int x0 = std::max(kHeaderWidth, static_cast<int>(std::floor(fx0)) - kHighlightPad);
    const int x1 = std::min(width, std::max(static_cast<int>(std::ceil(fx1)) + kHighlightPad, x0 + 2 * kHighlightPad + 1));
    raster_.outline(x0, x1, top, bottom, kHighlightFrame);
    if (x1 - x0 > 2 && bottom - top > 2) raster_.outline(x0 + 1, x1 - 1, top + 1, bottom - 1, kHighlightFrame);
    ++stats_.highlights;
  }
}

void TimelineView::paintDropMarker() {
  if (drag_ != Drag::Task || !drop_) return;
  const auto [top, bottom] = primaryRowSpan(drop_->lane);
  if (bottom <= kRulerHeight || top >= viewport()->height()) return;
  raster_.outline(kHeaderWidth, viewport()->width(), top, bottom, kDropMarker);
  raster_.fill(drop_->x - 1, drop_->x + 2, top, bottom, kDropMarker);
  stats_.dropMarker = true;
}

// ---- interaction ---------------------------------------------------------------

int32_t TimelineView::primaryTaskAt(const QPoint& pos) const {
  const auto row = rowAt(pos.y());
  if (!row || pos.x() < kHeaderWidth || row->section != Section::Primary || row->lowerHalf) return -1;
  if (row->lane >= primary_->numLanes()) return -1;
  const double usPerPx = spanUs_ / plotWidth();
  const TimelineHit hit = primary_->hitTest(row->lane, timeAtX(pos.x()) + 0.5 * usPerPx, kHitSlopPx * usPerPx);
  return hit.kind == TimelineHit::Kind::Task ? hit.index : -1;
}

std::optional<TimelineView::DropTarget> TimelineView::dropTargetAt(const QPoint& pos) const {
  const auto row = rowAt(pos.y());
  if (!row || row->section != Section::Primary || row->lane >= primary_->numLanes()) return std::nullopt;
  return DropTarget{row->lane, primary_->lane(row->lane).veu, std::max(kHeaderWidth, pos.x())};
}

void TimelineView::finishTaskDrag(const QPoint& pos, bool wholeOperator) {
  const auto target = dropTargetAt(pos);
  const auto& events = primary_->trace().tasks;
  if (!target || pressedTask_ < 0 || static_cast<size_t>(pressedTask_) >= events.size()) return;
  const sim::TaskEvent& moved = events[static_cast<size_t>(pressedTask_)];
  const double t = timeAtX(target->x);
  // TaskPin orders count rTasks (not barriers) on the vEU of that program.
  int order = 0;
  int ownOrder = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const sim::TaskEvent& e = events[i];
    if (e.program != moved.program || i == static_cast<size_t>(pressedTask_)) continue;
    if (e.veu == moved.veu && e.startUs < moved.startUs) ++ownOrder;
    if (e.veu != target->veu || (wholeOperator && e.task.op == moved.task.op)) continue;
    if (e.startUs < t) ++order;
  }
  if (!wholeOperator && target->veu == moved.veu && order == ownOrder) return;  // dropped where it was
  emit taskDropped(moved.task, moved.program, target->veu, order, wholeOperator);
}


QString TimelineView::tooltipTextAt(const QPoint& pos) const {
  const auto row = rowAt(pos.y());
  if (!row) return {};
  const bool overlay = mode_ == CompareMode::Overlay && secondary_;
  const bool comparisonLayer = overlay ? row->lowerHalf : row->section == Section::Comparison;
  const TimelineModel* model = comparisonLayer ? secondary_.get() : primary_.get();
  if (!model || row->lane >= model->numLanes()) return {};
  if (pos.x() < kHeaderWidth) {
    const TimelineLane& l = model->lane(row->lane);
    return QStringLiteral("SM %1 · vEU %2 · %3 rTasks").arg(l.sm).arg(l.veu).arg(model->tasks().laneSize(row->lane));
  }
  const double usPerPx = spanUs_ / plotWidth();
  const TimelineHit hit = model->hitTest(row->lane, timeAtX(pos.x()) + 0.5 * usPerPx, kHitSlopPx * usPerPx);
  if (!hit) return {};
  QString text = hit.kind == TimelineHit::Kind::Task ? model->describeTask(hit.index) : model->describeBarrier(hit.index);
  if (comparison_ && hit.kind == TimelineHit::Kind::Task) {
    const auto& slips = comparisonLayer ? comparison_->slipOfMeasured : comparison_->slipOfPredicted;
    const double slip = slips.at(static_cast<size_t>(hit.index));
    text += std::isnan(slip) ? QStringLiteral("\nslip: no partner in the other trace")
                             : QStringLiteral("\nslip (start in comparison - start in main trace): %1").arg(signedDuration(slip));
  }
  if (secondary_) {
    const std::string& source = model->trace().source;
    text = QStringLiteral("[%1]\n").arg(QString::fromStdString(source.empty() ? (comparisonLayer ? "comparison" : "main") : source)) + text;
  }
  return text;
}

bool TimelineView::viewportEvent(QEvent* event) {
  switch (event->type()) {
    case QEvent::ToolTip: {
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
    case QEvent::Leave:
      mousePos_.reset();
      break;
    default:
      break;
  }
  return QAbstractScrollArea::viewportEvent(event);
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_W:
      zoomBy(kZoomStep, anchorTime());
      break;
    case Qt::Key_S:
      zoomBy(1 / kZoomStep, anchorTime());
      break;
    case Qt::Key_A:
      panBy(-kPanStep);
      break;
    case Qt::Key_D:
      panBy(kPanStep);
      break;
    case Qt::Key_F:
      fitAll();
      break;
    case Qt::Key_Escape:
      clearAreaSelection();
      break;
    default:
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
  dragStart_ = pos;
  dragT0_ = t0_;
  dragScrollY_ = verticalScrollBar()->value();
  if (event->button() == Qt::LeftButton) {
    drag_ = (event->modifiers() & Qt::ShiftModifier) && pos.x() >= kHeaderWidth ? Drag::Area : Drag::Pending;
    pressedTask_ = drag_ == Drag::Pending ? primaryTaskAt(pos) : -1;
    pressedAlt_ = event->modifiers().testFlag(Qt::AltModifier);
  } else if (event->button() == Qt::MiddleButton || event->button() == Qt::RightButton) {
    drag_ = Drag::Pan;
  }
  event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  mousePos_ = pos;
  if (drag_ == Drag::Pending && (pos - dragStart_).manhattanLength() > kClickSlop)
    drag_ = pressedTask_ >= 0 ? Drag::Task : Drag::Pan;
  if (drag_ == Drag::Task) {
    drop_ = dropTargetAt(pos);
    viewport()->setCursor(drop_ ? Qt::DragMoveCursor : Qt::ForbiddenCursor);
    viewport()->update();
  } else if (drag_ == Drag::Pan) {
    t0_ = dragT0_ - (pos.x() - dragStart_.x()) * (spanUs_ / plotWidth());
    clampView();
    verticalScrollBar()->setValue(dragScrollY_ - (pos.y() - dragStart_.y()));
    viewChanged();
  } else if (drag_ == Drag::Area) {
    setAreaFromDrag(dragStart_, pos);
  }
  event->accept();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (drag_ == Drag::Task) {
    drop_.reset();
    viewport()->unsetCursor();
    viewport()->update();
    drag_ = Drag::None;  // a slot may open a dialog; the drag is over either way
    finishTaskDrag(pos, pressedAlt_ || event->modifiers().testFlag(Qt::AltModifier));
  } else if (drag_ == Drag::Area) {
    setAreaFromDrag(dragStart_, pos);
    if (area_) setAreaSelection(area_->section, area_->t0Us, area_->t1Us, area_->firstLane, area_->lastLane);
  } else if (drag_ == Drag::Pending) {
    // A click: select the operator of the rTask under the mouse.
    const auto row = rowAt(pos.y());
    TimelineHit hit;
    const TimelineModel* model = nullptr;
    if (row && pos.x() >= kHeaderWidth) {
      const bool overlay = mode_ == CompareMode::Overlay && secondary_;
      model = (overlay ? row->lowerHalf : row->section == Section::Comparison) ? secondary_.get() : primary_.get();
      const double usPerPx = spanUs_ / plotWidth();
      if (model && row->lane < model->numLanes()) {
        hit = model->hitTest(row->lane, timeAtX(pos.x()) + 0.5 * usPerPx, kHitSlopPx * usPerPx);
      }
    }
    if (area_) clearAreaSelection();
    if (hit.kind == TimelineHit::Kind::Task) {
      const int op = model->trace().tasks[static_cast<size_t>(hit.index)].task.op;
      QList<int> ops = selectedOps();
      if (event->modifiers() & Qt::ControlModifier) {
        if (ops.contains(op)) {
          ops.removeAll(op);
        } else {
          ops.append(op);
        }
      } else {
        ops = {op};
      }
      selectOps(ops);
      emit opsSelected(selectedOps());
    } else if (!selectedOps_.empty()) {
      selectOps({});
      emit opsSelected({});
    }
  }
  drag_ = Drag::None;
  pressedTask_ = -1;
  event->accept();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  const auto row = rowAt(pos.y());
  if (!row || pos.x() < kHeaderWidth) return;
  const bool overlay = mode_ == CompareMode::Overlay && secondary_;
  const TimelineModel* model = (overlay ? row->lowerHalf : row->section == Section::Comparison) ? secondary_.get()
                                                                                                : primary_.get();
  if (!model || row->lane >= model->numLanes()) return;
  const double usPerPx = spanUs_ / plotWidth();
  const TimelineHit hit = model->hitTest(row->lane, timeAtX(pos.x()) + 0.5 * usPerPx, kHitSlopPx * usPerPx);
  if (!hit) return;
  const auto [s, e] = hit.kind == TimelineHit::Kind::Task
                          ? std::pair{model->trace().tasks[static_cast<size_t>(hit.index)].startUs,
                                      model->trace().tasks[static_cast<size_t>(hit.index)].endUs}
                          : std::pair{model->trace().barriers[static_cast<size_t>(hit.index)].startUs,
                                      model->trace().barriers[static_cast<size_t>(hit.index)].endUs};
  const double margin = std::max(0.5 * (e - s), 1e-3);
  setVisibleRange(s - margin, e + margin);
  event->accept();
}

// ---- area selection ------------------------------------------------------------

void TimelineView::setAreaFromDrag(const QPoint& a, const QPoint& b) {
  const auto row = rowAt(std::max(a.y(), kRulerHeight));
  if (!row) return;
  const SectionLayout* s = nullptr;
  const auto layout = sections();
  for (const SectionLayout& l : layout) {
    if (l.section == row->section) s = &l;
  }
  if (!s) return;
  const int contentY = b.y() - kRulerHeight + verticalScrollBar()->value();
  const int other = std::clamp((contentY - s->lanesY) / laneHeight_, 0, std::max(0, s->model->numLanes() - 1));
  const int x0 = std::max(kHeaderWidth, std::min(a.x(), b.x()));
  const int x1 = std::max(kHeaderWidth, std::max(a.x(), b.x()));
  area_ = AreaSelection{row->section, timeAtX(x0), timeAtX(x1), std::min(row->lane, other), std::max(row->lane, other)};
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
  area_ = AreaSelection{section, areaSummary_->t0Us, areaSummary_->t1Us, areaSummary_->firstLane,
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
