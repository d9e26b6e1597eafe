#include "viz/widgets/timeline_painter.h"

#include <QColor>
#include <QFontMetrics>
#include <QPen>
#include <QPolygonF>
#include <algorithm>
#include <cmath>

#include "viz/models/timeline_palette.h"
#include "viz/models/timeline_time_axis.h"

namespace rammer::viz {

namespace {

using G = TimelineGeometry;

constexpr int kHighlightPad = 2;  // outline this far outside the box
constexpr double kArrowHead = 6;  // a path arrow's head, pixels
constexpr double kFadeUnselected = 0.72;
constexpr int kMinLabelWidth = 36;
constexpr int kMinSeparatedWidth = 4;  // boxes this wide get a darker left edge

QColor rgb(uint32_t c) { return QColor::fromRgb(c); }

}  // namespace

const TimelinePaintStats& TimelinePainter::paint(QPainter& target, const TimelineGeometry& g,
                                                 const TimelineScene& scene) {
  g_ = &g;
  s_ = &scene;
  stats_ = {};
  stats_.plotWidth = g.plotWidth();
  lod_ = LodQuery{g.t0Us, g.usPerPx(), 0, g.plotWidth()};
  raster_.reset(QSize(g.width, g.height), kTimelineBackground);
  labels_.clear();

  for (const auto& s : g.sections) {
    paintLanes(s);
    paintProgramLines(s);
  }
  paintHighlights();
  paintDropMarker();

  target.drawImage(0, 0, raster_.image());
  paintLabels(target);
  paintArrows(target);
  paintArea(target);
  for (const auto& s : g.sections) paintHeader(target, s);
  paintRuler(target);
  return stats_;
}

uint32_t TimelinePainter::markColor(const TimelineModel& model, const TimelineMark& m, bool comparisonLayer,
                                    bool selectionLayer) const {
  uint32_t c = model.opColor(m.op);
  const TraceComparison* cmp = s_->comparison;
  if (comparisonLayer && s_->slipColouring && cmp && m.source >= 0 &&
      static_cast<size_t>(m.source) < cmp->slipOfMeasured.size()) {
    c = slipColor(cmp->slipOfMeasured[static_cast<size_t>(m.source)], s_->slipScaleUs);
  }
  if (!selectionLayer && s_->hasSelection) c = fadeColor(c, kFadeUnselected);
  return c;
}

void TimelinePainter::paintLaneMarks(const TimelineModel& model, const TimelineLaneIndex& index, int lane, int y0,
                                     int y1, Layer layer, bool comparisonLayer, bool withLabels) {
  marks_.clear();
  index.marks(lane, lod_, marks_);
  ++stats_.queries;
  stats_.marks += static_cast<int64_t>(marks_.size());
  for (const TimelineMark& m : marks_) {
    const int x0 = G::kHeaderWidth + m.x0;
    const int x1 = G::kHeaderWidth + m.x1;
    switch (layer) {
      case Layer::Barriers:
        raster_.hatch(x0, x1, y0, y1, kBarrierFill, kBarrierHatch);
        break;
      case Layer::Tasks: {
        const uint32_t c = markColor(model, m, comparisonLayer, false);
        raster_.fill(x0, x1, y0, y1, c);
        // A darker first column tells back-to-back rTasks of one op apart.
        if (!m.dense && x1 - x0 >= kMinSeparatedWidth) raster_.fill(x0, x0 + 1, y0, y1, darkenColor(c));
        if (withLabels && !m.dense && x1 - x0 >= kMinLabelWidth && y1 - y0 >= 11)
          labels_.push_back({QRect(x0, y0, x1 - x0, y1 - y0), m.op, &model, c});
        break;
      }
      case Layer::Selection:
        raster_.fill(x0, x1, y0, y1, markColor(model, m, comparisonLayer, true));
        if (x1 - x0 >= 3 && y1 - y0 >= 3) raster_.outline(x0, x1, y0, y1, kTimelineSelectionFrame);
        break;
    }
  }
}

void TimelinePainter::paintLanes(const TimelineGeometry::SectionRows& s) {
  const TimelineGeometry& g = *g_;
  const int width = g.width;
  const int h = g.laneHeight;
  const int viewTop = G::kRulerHeight, viewBottom = g.height;
  const int bandY = g.toViewport(s.headerY);
  raster_.fill(0, width, bandY, bandY + G::kSectionHeaderHeight, kTimelineSectionBand);

  const TimelineModel& primary = *s_->primary;
  const TimelineModel* secondary = s_->secondary;
  const int lanesTop = g.toViewport(s.lanesY);
  const int n = s.lanes;
  const int first = std::max(0, (viewTop - lanesTop) / h);
  const int last = std::min(n - 1, (viewBottom - lanesTop) / h);
  const bool overlay = s.section == TimelineSection::Primary && g.overlay;
  const TimelineModel& rowsModel = overlay && n > primary.numLanes() ? *secondary : *s.model;
  const auto& groups = rowsModel.smGroups();
  auto group = groups.begin();

  const int padTop = h >= 6 ? 1 : 0;
  const int padBottom = h >= 4 ? 1 : 0;
  for (int lane = first; lane <= last; ++lane) {
    const int y = lanesTop + lane * h;
    while (group != groups.end() && group->firstLane + group->numLanes <= lane) ++group;
    if (group != groups.end()) {
      const auto gi = group - groups.begin();
      if (gi % 2 == 1) raster_.fill(G::kHeaderWidth, width, y, y + h, kTimelineGroupShade);
      if (group->firstLane == lane && lane > 0 && h >= 4)
        raster_.fill(G::kHeaderWidth, width, y, y + 1, kTimelineGroupLine);
    }
    ++stats_.lanes;
    const int top = y + padTop;
    const int bottom = y + h - padBottom;
    if (overlay) {
      const int mid = y + (h + 1) / 2;  // at 1 px the main trace keeps the row
      if (lane < primary.numLanes()) {
        paintLaneMarks(primary, primary.barriers(), lane, top, mid, Layer::Barriers, false, false);
        paintLaneMarks(primary, primary.tasks(), lane, top, mid, Layer::Tasks, false, true);
        if (s_->hasSelection)
          paintLaneMarks(primary, *s_->selectedPrimary, lane, top, mid, Layer::Selection, false, false);
      }
      if (lane < secondary->numLanes()) {
        paintLaneMarks(*secondary, secondary->barriers(), lane, mid, bottom, Layer::Barriers, true, false);
        paintLaneMarks(*secondary, secondary->tasks(), lane, mid, bottom, Layer::Tasks, true, true);
        if (s_->hasSelection)
          paintLaneMarks(*secondary, *s_->selectedSecondary, lane, mid, bottom, Layer::Selection, true, false);
      }
    } else {
      const bool comparison = s.section == TimelineSection::Comparison;
      const TimelineLaneIndex& selected = comparison ? *s_->selectedSecondary : *s_->selectedPrimary;
      paintLaneMarks(*s.model, s.model->barriers(), lane, top, bottom, Layer::Barriers, comparison, false);
      paintLaneMarks(*s.model, s.model->tasks(), lane, top, bottom, Layer::Tasks, comparison, true);
      if (s_->hasSelection) paintLaneMarks(*s.model, selected, lane, top, bottom, Layer::Selection, comparison, false);
    }
  }
}

void TimelinePainter::paintProgramLines(const TimelineGeometry::SectionRows& s) {
  const TimelineGeometry& g = *g_;
  const int top = std::max(G::kRulerHeight, g.toViewport(s.lanesY));
  const int bottom = std::min(g.height, g.toViewport(s.lanesY + s.lanes * g.laneHeight));
  if (top >= bottom) return;
  int lastX = -1;
  for (const sim::ProgramEvent& p : s.model->trace().programs) {
    const double xf = g.xOfTime(p.startUs);
    if (xf < G::kHeaderWidth || xf >= g.width) continue;
    const int x = static_cast<int>(xf);
    if (x == lastX) continue;  // at most one line per pixel column
    raster_.fill(x, x + 1, top, bottom, kTimelineProgramLine);
    lastX = x;
  }
}

void TimelinePainter::paintHighlights() {
  if (!s_->highlighted) return;
  const TimelineGeometry& g = *g_;
  const TimelineModel& primary = *s_->primary;
  const auto& events = primary.trace().tasks;
  for (int32_t i : *s_->highlighted) {
    const sim::TaskEvent& e = events[static_cast<size_t>(i)];
    const auto [top, bottom] = g.primaryRowSpan(primary.laneOfTask(i));
    if (bottom <= G::kRulerHeight || top >= g.height) continue;
    const double fx0 = g.xOfTime(e.startUs);
    const double fx1 = g.xOfTime(e.endUs);
    if (fx1 < G::kHeaderWidth - kHighlightPad || fx0 > g.width + kHighlightPad) continue;
    // Never thinner than the frame itself, so a tiny rTask still shows.
    const int x0 = std::max(G::kHeaderWidth, static_cast<int>(std::floor(fx0)) - kHighlightPad);
    const int x1 =
        std::min(g.width, std::max(static_cast<int>(std::ceil(fx1)) + kHighlightPad, x0 + 2 * kHighlightPad + 1));
    raster_.outline(x0, x1, top, bottom, kTimelineHighlightFrame);
    if (x1 - x0 > 2 && bottom - top > 2) raster_.outline(x0 + 1, x1 - 1, top + 1, bottom - 1, kTimelineHighlightFrame);
    ++stats_.highlights;
  }
}

void TimelinePainter::paintArrows(QPainter& p) {
  if (!s_->arrows || s_->arrows->empty()) return;
  const TimelineGeometry& g = *g_;
  const TimelineModel& primary = *s_->primary;
  const auto& events = primary.trace().tasks;
  const QRectF plot(G::kHeaderWidth, G::kRulerHeight, g.width - G::kHeaderWidth, g.height - G::kRulerHeight);
  p.save();
  p.setClipRect(plot);
  p.setRenderHint(QPainter::Antialiasing);
  const QColor c = rgb(kTimelineHighlightFrame);
  p.setPen(QPen(c, 1.5));
  p.setBrush(c);
  const auto middle = [&](int32_t i) {
    const auto [top, bottom] = g.primaryRowSpan(primary.laneOfTask(i));
    return 0.5 * (top + bottom);
  };
  for (const auto& [from, to] : *s_->arrows) {
    const QPointF a(g.xOfTime(events[static_cast<size_t>(from)].endUs), middle(from));
    const QPointF b(g.xOfTime(events[static_cast<size_t>(to)].startUs), middle(to));
    if (!plot.intersects(QRectF(a, b).normalized().adjusted(-kArrowHead, -kArrowHead, kArrowHead, kArrowHead)))
      continue;
    p.drawLine(a, b);
    // The head points along the line; a zero-length hand-off gets a head pointing down its lane.
    const QPointF d = b - a;
    const double len = std::hypot(d.x(), d.y());
    const QPointF u = len > 0.5 ? d / len : QPointF(1, 0), n(-u.y(), u.x());
    const QPointF back = b - kArrowHead * u;
    p.drawPolygon(QPolygonF({b, back + 0.5 * kArrowHead * n, back - 0.5 * kArrowHead * n}));
    ++stats_.arrows;
  }
  p.restore();
}

void TimelinePainter::paintDropMarker() {
  if (!s_->drop) return;
  const auto [top, bottom] = g_->primaryRowSpan(s_->drop->lane);
  if (bottom <= G::kRulerHeight || top >= g_->height) return;
  raster_.outline(G::kHeaderWidth, g_->width, top, bottom, kTimelineDropMarker);
  raster_.fill(s_->drop->x - 1, s_->drop->x + 2, top, bottom, kTimelineDropMarker);
  stats_.dropMarker = true;
}

void TimelinePainter::paintLabels(QPainter& p) {
  if (labels_.empty()) return;
  QFont f = s_->font;
  f.setPixelSize(std::clamp(g_->laneHeight - 4, 8, 11));
  p.setFont(f);
  const QFontMetrics fm(f);
  for (const Label& l : labels_) {
    const int room = l.rect.width() - 6;
    const QString text = fm.elidedText(l.model->opName(l.op), Qt::ElideRight, room);
    if (text.isEmpty() || text == QStringLiteral("…")) continue;
    p.setPen(rgb(isDarkColor(l.fill) ? 0xFFFFFF : 0x111111));
    p.drawText(l.rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    ++stats_.labels;
  }
}

void TimelinePainter::paintHeader(QPainter& p, const TimelineGeometry::SectionRows& s) const {
  const TimelineGeometry& g = *g_;
  const int h = g.laneHeight;
  const int viewTop = G::kRulerHeight, viewBottom = g.height;
  const int lanesTop = g.toViewport(s.lanesY);
  const int n = s.lanes;
  const int bandY = g.toViewport(s.headerY);
  const bool overlay = s.section == TimelineSection::Primary && g.overlay;

  // Section band: which trace this is.
  const sim::Trace& t = s.model->trace();
  QString title = QString::fromStdString(t.source.empty() ? (t.measured ? "measured" : "predicted") : t.source);
  if (!t.device.empty()) title += QStringLiteral(" · %1").arg(QString::fromStdString(t.device));
  title += QStringLiteral(" · %1 programs · %2").arg(t.programs.size()).arg(formatDuration(t.totalUs));
  if (overlay) {
    const sim::Trace& c = s_->secondary->trace();
    title += QStringLiteral("   (lower half: %1, coloured by slip)")
                 .arg(QString::fromStdString(c.source.empty() ? "comparison" : c.source));
  }
  if (bandY + G::kSectionHeaderHeight > viewTop && bandY < viewBottom) {
    p.setPen(rgb(0x303540));
    p.drawText(QRect(6, bandY, g.width - 12, G::kSectionHeaderHeight), Qt::AlignVCenter | Qt::AlignLeft, title);
  }

  const int top = std::max(viewTop, lanesTop);
  const int bottom = std::min(viewBottom, lanesTop + n * h);
  if (top >= bottom) return;
  p.fillRect(QRect(0, top, G::kHeaderWidth, bottom - top), rgb(0xF7F8FA));
  p.setPen(rgb(0xC0C4CC));
  p.drawLine(G::kHeaderWidth - 1, top, G::kHeaderWidth - 1, bottom);

  const TimelineModel& rowsModel = overlay && n > s_->primary->numLanes() ? *s_->secondary : *s.model;
  const int first = std::max(0, (viewTop - lanesTop) / h);
  const int last = std::min(n - 1, (viewBottom - lanesTop) / h);
  QFont f = s_->font;
  f.setPixelSize(std::clamp(h - 3, 9, 12));
  p.setFont(f);
  const int textH = QFontMetrics(f).height();
  int freeY = top;  // labels below this do not overlap the previous one
  for (const SmGroup& grp : rowsModel.smGroups()) {
    if (grp.firstLane + grp.numLanes <= first || grp.firstLane > last) continue;
    const int gy = std::max(top, lanesTop + grp.firstLane * h);
    if (gy >= freeY) {
      p.setPen(rgb(0x202530));
      p.drawText(QRect(4, gy, G::kHeaderWidth / 2, textH), Qt::AlignLeft | Qt::AlignTop,
                 grp.sm >= 0 ? QStringLiteral("SM %1").arg(grp.sm) : QStringLiteral("SM ?"));
      freeY = gy + textH;
    }
    if (h >= 10) {
      p.setPen(rgb(0x606570));
      const int l0 = std::max(grp.firstLane, first);
      const int l1 = std::min(grp.firstLane + grp.numLanes - 1, last);
      for (int lane = l0; lane <= l1; ++lane)
        p.drawText(QRect(G::kHeaderWidth / 2, lanesTop + lane * h, G::kHeaderWidth / 2 - 6, h),
                   Qt::AlignRight | Qt::AlignVCenter,
                   rowsModel.lane(lane).folded() ? (rowsModel.lane(lane).veus == 1 ? QStringLiteral("1 vEU")
                                                                                   : QStringLiteral("%1 vEUs").arg(rowsModel.lane(lane).veus))
                                                 : QStringLiteral("vEU %1").arg(rowsModel.lane(lane).veu));
    }
  }
}

void TimelinePainter::paintRuler(QPainter& p) const {
  const TimelineGeometry& g = *g_;
  const int width = g.width;
  p.fillRect(QRect(0, 0, width, G::kRulerHeight), rgb(0xECEEF2));
  p.setPen(rgb(0xB0B4BC));
  p.drawLine(0, G::kRulerHeight - 1, width, G::kRulerHeight - 1);
  QFont f = s_->font;
  f.setPixelSize(10);
  p.setFont(f);

  const double step = niceTickStep(g.usPerPx() * 90);
  p.setClipRect(QRect(G::kHeaderWidth, 0, width - G::kHeaderWidth, G::kRulerHeight));
  for (double t : tickTimes(g.t0Us, g.t0Us + g.spanUs, step)) {
    const int x = static_cast<int>(g.xOfTime(t));
    p.setPen(rgb(0x606570));
    p.drawLine(x, G::kRulerHeight - 7, x, G::kRulerHeight - 1);
    p.drawText(x + 3, G::kRulerHeight - 9, formatTickLabel(t, step));
  }
  // Program starts: a marker, and "P<n>" where there is room.
  int lastLabelRight = -1;
  for (const sim::ProgramEvent& pe : s_->primary->trace().programs) {
    const double xf = g.xOfTime(pe.startUs);
    if (xf < G::kHeaderWidth || xf >= width) continue;
    const int x = static_cast<int>(xf);
    p.setPen(rgb(kTimelineProgramLine));
    p.drawLine(x, G::kRulerHeight - 4, x, G::kRulerHeight - 1);
    if (x > lastLabelRight + 4) {
      const QString label = QStringLiteral("P%1").arg(pe.program);
      p.drawText(x + 2, G::kRulerHeight - 1 - 1, label);
      lastLabelRight = x + 2 + QFontMetrics(f).horizontalAdvance(label);
    }
  }
  p.setClipping(false);
  p.setPen(rgb(0x303540));
  p.drawText(QRect(4, 0, G::kHeaderWidth - 8, G::kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
             QStringLiteral("⟷ %1").arg(formatDuration(g.spanUs)));
}

void TimelinePainter::paintArea(QPainter& p) const {
  if (!s_->area) return;
  const TimelineGeometry& g = *g_;
  const TimelineAreaBox& area = *s_->area;
  for (const auto& s : g.sections) {
    if (s.section != area.section && !g.overlay) continue;
    const int x0 = static_cast<int>(std::max<double>(G::kHeaderWidth, g.xOfTime(area.t0Us)));
    const int x1 = static_cast<int>(std::min<double>(g.width, g.xOfTime(area.t1Us)));
    const int y0 = g.toViewport(s.lanesY + area.firstLane * g.laneHeight);
    const int y1 = g.toViewport(s.lanesY + (area.lastLane + 1) * g.laneHeight);
    if (x1 <= x0 || y1 <= G::kRulerHeight || y0 >= g.height) return;  // scrolled out of view
    const QRect r(QPoint(x0, std::max(y0, G::kRulerHeight)), QPoint(x1 - 1, y1 - 1));
    p.fillRect(r, QColor(60, 120, 220, 45));
    p.setPen(QColor(40, 90, 190));
    p.drawRect(r.adjusted(0, 0, -1, -1));
    if (s_->areaSummary) {
      const QString text = formatAreaSummary(*s_->areaSummary, *s.model, 3);
      QFont f = s_->font;
      f.setPixelSize(11);
      p.setFont(f);
      QRect box = QFontMetrics(f).boundingRect(QRect(0, 0, 1000, 1000), Qt::AlignLeft | Qt::AlignTop, text);
      box.adjust(-4, -3, 4, 3);
      box.moveTopLeft(QPoint(std::min(r.left() + 4, g.width - box.width() - 2), r.top() + 4));
      p.fillRect(box, QColor(255, 255, 255, 235));
      p.setPen(QColor(40, 90, 190));
      p.drawRect(box.adjusted(0, 0, -1, -1));
      p.setPen(rgb(0x202530));
      p.drawText(box.adjusted(4, 3, -4, -3), Qt::AlignLeft | Qt::AlignTop, text);
    }
    return;
  }
}

}  // namespace rammer::viz
