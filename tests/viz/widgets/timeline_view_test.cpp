// TimelineView offscreen: level-of-detail painting of a million rTasks
// (asserted on the number of marks painted, never on time), what lands on
// the pixels, the Perfetto keys and mouse zoom, tooltips, click and area
// selection, and the predicted-vs-measured comparison views.
#include "viz/widgets/timeline_view.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "tests/viz/timeline_test_traces.h"
#include "viz/models/timeline_palette.h"
#include "viz/models/timeline_time_axis.h"

namespace rammer::viz {
namespace {

using Section = TimelineView::Section;

// 1,000,000 rTasks over 132 SMs x 8 vEUs, made once for the tests below.
std::shared_ptr<const sim::Trace> millionTaskTrace() {
  static const std::shared_ptr<const sim::Trace> trace = viztest::makeSyntheticTrace({});
  return trace;
}

std::shared_ptr<const sim::Trace> smallTrace() {
  viztest::SyntheticTraceOptions o;
  o.tasks = 4000;
  o.sms = 4;
  o.veusPerSM = 2;
  o.programs = 2;
  o.opsPerProgram = 3;
  return viztest::makeSyntheticTrace(o);
}

void sendMouse(QWidget* w, QEvent::Type type, QPoint pos, Qt::MouseButton button = Qt::NoButton,
               Qt::KeyboardModifiers mods = Qt::NoModifier) {
  const Qt::MouseButtons buttons = type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::MouseButtons(button);
  QMouseEvent ev(type, QPointF(pos), QPointF(w->mapToGlobal(pos)), button, buttons, mods);
  QCoreApplication::sendEvent(w, &ev);
}

QRgb pixelAt(TimelineView& view, QPoint pos) {
  const QImage img = view.viewport()->grab().toImage();
  return img.pixel(pos) & 0xFFFFFF;
}

// Scrolls lanes so `lane` is in view and returns the point at time t on it.
QPoint pointOn(TimelineView& view, Section section, int lane, double tUs) {
  view.verticalScrollBar()->setValue(std::max(0, lane * view.laneHeight() - 100));
  return QPoint(static_cast<int>(std::floor(view.xOfTime(tUs))), *view.yOfLane(section, lane));
}

TEST(TimelineView, MillionTasksPaintAtMostOneMarkPerColumnPerLane) {
  const auto trace = millionTaskTrace();
  ASSERT_EQ(trace->tasks.size(), 1'000'000u);
  TimelineView view;
  view.resize(400, 1200);
  view.show();
  view.setTrace(trace);
  ASSERT_EQ(view.model().numLanes(), 132 * 8);
  const int64_t events = static_cast<int64_t>(trace->tasks.size() + trace->barriers.size());

  struct Level {
    const char* name;
    int laneHeight;
    double zoom;  // visible span as a fraction of the whole trace
  };
  for (const Level& level : {Level{"fit, all lanes", 1, 1.0}, Level{"fit", 14, 1.0}, Level{"x10", 14, 0.1},
                             Level{"x1000", 3, 0.001}}) {
    SCOPED_TRACE(level.name);
    view.setLaneHeight(level.laneHeight);
    const double mid = 0.5 * (view.model().startUs() + view.model().endUs());
    const double span = (view.model().endUs() - view.model().startUs()) * level.zoom;
    view.setVisibleRange(mid - span / 2, mid + span / 2);
    const QImage image = view.grab().toImage();
    ASSERT_FALSE(image.isNull());
    const auto& st = view.lastPaintStats();
    const int visibleRows = (view.viewport()->height() - TimelineView::kRulerHeight) / level.laneHeight + 2;
    EXPECT_GT(st.lanes, 0);
    EXPECT_LE(st.lanes, visibleRows);
    EXPECT_EQ(st.queries, 2 * st.lanes) << "one query per lane for rTasks, one for barriers";
    EXPECT_GT(st.marks, 0);
    EXPECT_LE(st.marks, st.queries * st.plotWidth) << "more than one mark per pixel column";
    if (level.laneHeight == 1) {
      EXPECT_EQ(st.lanes, 1056) << "every lane fits at 1 px";
      EXPECT_LT(st.marks, events / 2) << "level of detail: far fewer marks than events";
    }
  }
}

TEST(TimelineView, PixelsShowTheOperatorsColour) {
  const auto trace = millionTaskTrace();
  TimelineView view;
  view.resize(900, 600);
  view.show();
  view.setTrace(trace);
  const size_t k = 654'321;
  const sim::TaskEvent& e = trace->tasks[k];
  const double dur = e.endUs - e.startUs;
  view.setVisibleRange(e.startUs - dur, e.endUs + dur);
  const int lane = view.model().laneOfTask(static_cast<int32_t>(k));
  const QPoint at = pointOn(view, Section::Primary, lane, e.startUs + 0.75 * dur);
  EXPECT_EQ(pixelAt(view, at), view.model().opColor(e.task.op));
  // The ruler band and the lane header are not rTasks.
  EXPECT_NE(pixelAt(view, QPoint(at.x(), 2)), view.model().opColor(e.task.op));
}

TEST(TimelineView, PerfettoKeysZoomPanAndFit) {
  TimelineView view;
  view.resize(900, 500);
  view.show();
  view.setTrace(smallTrace());
  const double lo = view.model().startUs();
  const double hi = view.model().endUs();
  EXPECT_DOUBLE_EQ(view.visibleStartUs(), lo);
  EXPECT_DOUBLE_EQ(view.visibleEndUs(), hi);

  // W without the mouse over the lanes zooms about the centre.
  QTest::keyClick(&view, Qt::Key_W);
  const double span = hi - lo;
  EXPECT_NEAR(view.visibleEndUs() - view.visibleStartUs(), span * TimelineView::kZoomStep, 1e-9 * span);
  EXPECT_NEAR(0.5 * (view.visibleStartUs() + view.visibleEndUs()), 0.5 * (lo + hi), 1e-9 * span);

  // With the mouse over the lanes, W and S keep the time under it still.
  const QPoint mouse(TimelineView::kHeaderWidth + 120, 100);
  sendMouse(view.viewport(), QEvent::MouseMove, mouse);
  const double under = view.timeAtX(mouse.x());
  QTest::keyClick(&view, Qt::Key_W);
  EXPECT_NEAR(view.timeAtX(mouse.x()), under, 1e-9 * span);
  EXPECT_NEAR(view.visibleEndUs() - view.visibleStartUs(), span * 0.64, 1e-9 * span);
  QTest::keyClick(&view, Qt::Key_S);
  EXPECT_NEAR(view.timeAtX(mouse.x()), under, 1e-9 * span);
  EXPECT_NEAR(view.visibleEndUs() - view.visibleStartUs(), span * 0.8, 1e-9 * span);

  // D and A move by a fifth of the visible span.
  view.setVisibleRange(lo + 0.4 * span, lo + 0.5 * span);
  const double t0 = view.visibleStartUs();
  const double w = view.visibleEndUs() - t0;
  QTest::keyClick(&view, Qt::Key_D);
  EXPECT_NEAR(view.visibleStartUs(), t0 + TimelineView::kPanStep * w, 1e-9 * span);
  QTest::keyClick(&view, Qt::Key_A);
  QTest::keyClick(&view, Qt::Key_A);
  EXPECT_NEAR(view.visibleStartUs(), t0 - TimelineView::kPanStep * w, 1e-9 * span);
  EXPECT_NEAR(view.visibleEndUs() - view.visibleStartUs(), w, 1e-9 * span) << "panning keeps the zoom";
  // Panning stops at the trace's start.
  for (int i = 0; i < 20; ++i) QTest::keyClick(&view, Qt::Key_A);
  EXPECT_DOUBLE_EQ(view.visibleStartUs(), lo);

  // Ctrl+wheel zooms at the mouse.
  QWheelEvent wheel(QPointF(mouse), QPointF(view.viewport()->mapToGlobal(mouse)), QPoint(), QPoint(0, 120),
                    Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
  const double before = view.timeAtX(mouse.x());
  QCoreApplication::sendEvent(view.viewport(), &wheel);
  EXPECT_NEAR(view.visibleEndUs() - view.visibleStartUs(), w * TimelineView::kZoomStep, 1e-9 * span);
  EXPECT_NEAR(view.timeAtX(mouse.x()), before, 1e-9 * span);

  QTest::keyClick(&view, Qt::Key_F);
  EXPECT_DOUBLE_EQ(view.visibleStartUs(), lo);
  EXPECT_DOUBLE_EQ(view.visibleEndUs(), hi);
  // S cannot zoom out beyond the whole trace.
  QTest::keyClick(&view, Qt::Key_S);
  EXPECT_DOUBLE_EQ(view.visibleEndUs() - view.visibleStartUs(), hi - lo);
}

TEST(TimelineView, TooltipDescribesTheRTaskUnderTheMouse) {
  const auto trace = millionTaskTrace();
  TimelineView view;
  view.resize(900, 600);
  view.show();
  view.setTrace(trace);
  // An rTask with a barrier in front of it, so the tooltip says what it waited for.
  const sim::BarrierEvent& b = trace->barriers[12345];
  const int32_t k = view.model().findTask(b.program, {b.veu, b.order + 1});
  ASSERT_GE(k, 0);
  const sim::TaskEvent& e = trace->tasks[static_cast<size_t>(k)];
  view.setVisibleRange(e.startUs - 5, e.endUs + 5);
  const QPoint at = pointOn(view, Section::Primary, view.model().laneOfTask(k), 0.5 * (e.startUs + e.endUs));
  const QString text = view.tooltipTextAt(at);
  const std::string s = text.toStdString();
  EXPECT_NE(s.find("op: " + trace->opNames[static_cast<size_t>(e.task.op)] + " (" +
                   trace->opTypes[static_cast<size_t>(e.task.op)] + ")"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("rTask: " + std::to_string(e.task.rtask)), std::string::npos) << s;
  EXPECT_NE(s.find("rKernel: " + trace->kernelNames[static_cast<size_t>(e.task.op)]), std::string::npos) << s;
  EXPECT_NE(s.find(QStringLiteral("start: %1 µs").arg(e.startUs, 0, 'f', 3).toStdString()), std::string::npos) << s;
  EXPECT_NE(s.find("waited"), std::string::npos) << s;
  EXPECT_NE(s.find("vEU " + std::to_string(b.lastSlot.veu)), std::string::npos) << s;

  // The same text through Qt's tooltip event.
  QHelpEvent help(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
  QCoreApplication::sendEvent(view.viewport(), &help);
  EXPECT_EQ(QToolTip::text(), text);
  // Above the lanes (the ruler): no tooltip.
  EXPECT_TRUE(view.tooltipTextAt(QPoint(at.x(), 3)).isEmpty());
}

TEST(TimelineView, ClickSelectsAnOpAndSelectOpsHighlightsWithoutEmitting) {
  const auto trace = smallTrace();
  TimelineView view;
  view.resize(900, 500);
  view.show();
  view.setTrace(trace);
  QSignalSpy spy(&view, &TimelineView::opsSelected);

  const size_t k = 1234;
  const sim::TaskEvent& e = trace->tasks[k];
  const double dur = e.endUs - e.startUs;
  view.setVisibleRange(e.startUs - dur, e.endUs + dur);
  const QPoint at = pointOn(view, Section::Primary, view.model().laneOfTask(static_cast<int32_t>(k)),
                            e.startUs + 0.75 * dur);
  QTest::mouseClick(view.viewport(), Qt::LeftButton, Qt::NoModifier, at);
  ASSERT_EQ(spy.count(), 1);
  EXPECT_EQ(spy.at(0).at(0).value<QList<int>>(), QList<int>{e.task.op});
  EXPECT_EQ(view.selectedOps(), QList<int>{e.task.op});
  // Selected rTasks keep their colour and get a selection layer query.
  EXPECT_EQ(pixelAt(view, at), view.model().opColor(e.task.op));
  EXPECT_EQ(view.lastPaintStats().queries, 3 * view.lastPaintStats().lanes);

  // Selecting another op from outside fades this one and emits nothing.
  const int other = e.task.op == 0 ? 1 : 0;
  view.selectOps({other});
  EXPECT_EQ(spy.count(), 1);
  EXPECT_EQ(pixelAt(view, at), fadeColor(view.model().opColor(e.task.op), 0.72));

  // Clicking where there is no rTask (the section's title band) clears it.
  view.verticalScrollBar()->setValue(0);
  QTest::mouseClick(view.viewport(), Qt::LeftButton, Qt::NoModifier,
                    QPoint(TimelineView::kHeaderWidth + 50, TimelineView::kRulerHeight + 5));
  ASSERT_EQ(spy.count(), 2);
  EXPECT_TRUE(spy.at(1).at(0).value<QList<int>>().isEmpty());
  EXPECT_TRUE(view.selectedOps().isEmpty());
}

TEST(TimelineView, ShiftDragSummarisesTheArea) {
  const auto trace = smallTrace();
  TimelineView view;
  view.resize(900, 500);
  view.show();
  view.setTrace(trace);
  QSignalSpy spy(&view, &TimelineView::areaSelectionChanged);
  view.verticalScrollBar()->setValue(0);
  const QPoint a(TimelineView::kHeaderWidth + 50, *view.yOfLane(Section::Primary, 1));
  const QPoint b(TimelineView::kHeaderWidth + 400, *view.yOfLane(Section::Primary, 4));
  sendMouse(view.viewport(), QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::ShiftModifier);
  sendMouse(view.viewport(), QEvent::MouseMove, b, Qt::LeftButton, Qt::ShiftModifier);
  sendMouse(view.viewport(), QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::ShiftModifier);
  ASSERT_TRUE(view.areaSummary().has_value());
  EXPECT_GE(spy.count(), 1);
  const AreaSummary& s = *view.areaSummary();
  EXPECT_EQ(s.firstLane, 1);
  EXPECT_EQ(s.lastLane, 4);
  EXPECT_DOUBLE_EQ(s.t0Us, view.timeAtX(a.x()));
  EXPECT_DOUBLE_EQ(s.t1Us, view.timeAtX(b.x()));
  const AreaSummary direct = summarizeArea(view.model(), s.t0Us, s.t1Us, 1, 4);
  EXPECT_DOUBLE_EQ(s.busyUs, direct.busyUs);
  EXPECT_GT(s.busyFraction, 0.5) << "the synthetic lanes are mostly busy";
  EXPECT_LE(s.busyFraction, 1.0);
  EXPECT_TRUE(view.areaSummaryText().contains("busy")) << view.areaSummaryText().toStdString();
  view.grab();  // paints the area and its summary box
  QTest::keyClick(&view, Qt::Key_Escape);
  EXPECT_FALSE(view.areaSummary().has_value());
}

TEST(TimelineView, ComparisonOverlayColoursBySlipAndSideBySideAddsRows) {
  const auto predicted = smallTrace();
  const auto measured = viztest::makeMeasuredCopy(*predicted, 100);
  TimelineView view;
  view.resize(900, 250);  // one trace's 8 lanes fit, two do not
  view.show();
  view.setTrace(predicted);
  const int primaryMax = view.verticalScrollBar()->maximum();
  view.setComparisonTrace(measured);
  ASSERT_NE(view.comparison(), nullptr);
  EXPECT_EQ(view.comparison()->onlyPredicted.size(), 40u);

  // Side by side (the default): the measured lanes come after the predicted.
  const int lanes = view.model().numLanes();
  EXPECT_GT(*view.yOfLane(Section::Comparison, 0), *view.yOfLane(Section::Primary, lanes - 1));
  view.grab();
  EXPECT_EQ(view.lastPaintStats().queries, 2 * view.lastPaintStats().lanes);
  EXPECT_EQ(primaryMax, 0);
  EXPECT_GT(view.verticalScrollBar()->maximum(), primaryMax);

  // Overlay: each row holds both; the measured half is coloured by slip.
  view.setCompareMode(TimelineView::CompareMode::Overlay);
  ASSERT_NE(view.comparisonModel(), nullptr);
  EXPECT_EQ(view.comparisonModel()->numLanes(), lanes);
  int32_t m = -1;  // a long measured rTask that ran late (its neighbours, shifted differently, may overlap its ends)
  for (size_t i = 0; i < measured->tasks.size() && m < 0; ++i) {
    const sim::TaskEvent& t = measured->tasks[i];
    if (view.comparison()->slipOfMeasured[i] > 0.25 && t.endUs - t.startUs > 2) m = static_cast<int32_t>(i);
  }
  ASSERT_GE(m, 0);
  const sim::TaskEvent& e = measured->tasks[static_cast<size_t>(m)];
  view.setVisibleRange(e.startUs - 3, e.endUs + 3);
  const QPoint at = pointOn(view, Section::Comparison, view.comparisonModel()->laneOfTask(m), 0.5 * (e.startUs + e.endUs));
  const double slip = view.comparison()->slipOfMeasured[static_cast<size_t>(m)];
  EXPECT_EQ(pixelAt(view, at), slipColor(slip, 2 * view.comparison()->meanAbsSlipUs));
  EXPECT_EQ(view.lastPaintStats().queries, 4 * view.lastPaintStats().lanes);
  const QString tip = view.tooltipTextAt(at);
  EXPECT_TRUE(tip.startsWith("[measured: synthetic]")) << tip.toStdString();
  EXPECT_TRUE(tip.contains(QStringLiteral("slip (start in comparison - start in main trace): +%1").arg(formatDuration(slip))))
      << tip.toStdString();
  view.setSlipColouring(false);
  EXPECT_EQ(pixelAt(view, at), view.comparisonModel()->opColor(e.task.op));

  view.setComparisonTrace(nullptr);
  EXPECT_EQ(view.comparison(), nullptr);
  EXPECT_FALSE(view.yOfLane(Section::Comparison, 0).has_value());
}

TEST(TimelineView, EmptyTracePaintsNothingAndDoesNotCrash) {
  TimelineView view;
  view.resize(400, 300);
  view.show();
  view.grab();
  EXPECT_EQ(view.lastPaintStats().marks, 0);
  view.setTrace(std::make_shared<sim::Trace>());
  for (auto key : {Qt::Key_W, Qt::Key_S, Qt::Key_A, Qt::Key_D, Qt::Key_F}) QTest::keyClick(&view, key);
  view.grab();
  EXPECT_EQ(view.lastPaintStats().marks, 0);
  EXPECT_TRUE(view.tooltipTextAt(QPoint(200, 100)).isEmpty());
  view.setTrace(nullptr);
  view.grab();
  view.setModel(nullptr);
  view.grab();
  EXPECT_EQ(view.lastPaintStats().marks, 0);
  // A model built elsewhere (e.g. off the UI thread) is shown as is.
  auto model = std::make_shared<TimelineModel>(smallTrace());
  view.setModel(model);
  EXPECT_EQ(&view.model(), model.get());
  EXPECT_DOUBLE_EQ(view.visibleEndUs(), model->endUs());
}

}  // namespace
}  // namespace rammer::viz

namespace rammer::viz {
namespace {

// The rTask orders on `veu` of `program` that start before `t` (`skip`
// excluded): what a drop at t should propose, counted straight from the trace.
int rTasksBefore(const sim::Trace& trace, int program, int veu, double t, size_t skip) {
  int n = 0;
  for (size_t i = 0; i < trace.tasks.size(); ++i) {
    const sim::TaskEvent& e = trace.tasks[i];
    if (i != skip && e.program == program && e.veu == veu && e.startUs < t) ++n;
  }
  return n;
}

TEST(TimelineView, DraggingAnRTaskToAnotherLaneProposesAMove) {
  const auto trace = smallTrace();
  TimelineView view;
  view.resize(900, 500);
  view.show();
  view.setTrace(trace);
  QSignalSpy dropped(&view, &TimelineView::taskDropped);
  QSignalSpy selected(&view, &TimelineView::opsSelected);

  const size_t k = 1234;
  const sim::TaskEvent& e = trace->tasks[k];
  const double dur = e.endUs - e.startUs;
  view.setVisibleRange(e.startUs - dur, e.endUs + dur);
  const int lane = view.model().laneOfTask(static_cast<int32_t>(k));
  const int targetLane = lane >= 2 ? lane - 2 : lane + 2;  // both within the first screenful
  view.verticalScrollBar()->setValue(0);
  const QPoint from(static_cast<int>(std::floor(view.xOfTime(e.startUs + 0.5 * dur))), *view.yOfLane(Section::Primary, lane));
  const QPoint to(static_cast<int>(std::floor(view.xOfTime(e.startUs + 0.25 * dur))),
                  *view.yOfLane(Section::Primary, targetLane));
  const double t0 = view.visibleStartUs();

  sendMouse(view.viewport(), QEvent::MouseButtonPress, from, Qt::LeftButton);
  sendMouse(view.viewport(), QEvent::MouseMove, to, Qt::LeftButton);
  view.grab();
  EXPECT_TRUE(view.lastPaintStats().dropMarker);
  sendMouse(view.viewport(), QEvent::MouseButtonRelease, to, Qt::LeftButton);

  ASSERT_EQ(dropped.count(), 1);
  const QList<QVariant> args = dropped.first();
  EXPECT_EQ(args.at(0).value<schedule::RTask>(), e.task);
  EXPECT_EQ(args.at(1).toInt(), e.program);
  const int targetVeu = view.model().lane(targetLane).veu;
  ASSERT_NE(targetVeu, e.veu);
  EXPECT_EQ(args.at(2).toInt(), targetVeu);
  EXPECT_EQ(args.at(3).toInt(), rTasksBefore(*trace, e.program, targetVeu, view.timeAtX(to.x()), k));
  EXPECT_FALSE(args.at(4).toBool());
  // Dragging an rTask neither pans nor selects.
  EXPECT_DOUBLE_EQ(view.visibleStartUs(), t0);
  EXPECT_EQ(selected.count(), 0);
  view.grab();
  EXPECT_FALSE(view.lastPaintStats().dropMarker);

  // Alt: the whole operator; its own rTasks do not count in the order.
  sendMouse(view.viewport(), QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::AltModifier);
  sendMouse(view.viewport(), QEvent::MouseMove, to, Qt::LeftButton, Qt::AltModifier);
  sendMouse(view.viewport(), QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::AltModifier);
  ASSERT_EQ(dropped.count(), 2);
  EXPECT_TRUE(dropped.at(1).at(4).toBool());
  int expected = 0;
  for (const sim::TaskEvent& x : trace->tasks)
    if (x.program == e.program && x.veu == targetVeu && x.task.op != e.task.op && x.startUs < view.timeAtX(to.x()))
      ++expected;
  EXPECT_EQ(dropped.at(1).at(3).toInt(), expected);

  // Dropped back where it was: nothing proposed.
  sendMouse(view.viewport(), QEvent::MouseButtonPress, from, Qt::LeftButton);
  sendMouse(view.viewport(), QEvent::MouseMove, from + QPoint(0, 6), Qt::LeftButton);
  sendMouse(view.viewport(), QEvent::MouseButtonRelease, from + QPoint(1, 0), Qt::LeftButton);
  EXPECT_EQ(dropped.count(), 2);

  // Dragging empty space (the section's title band) still pans.
  const QPoint band(TimelineView::kHeaderWidth + 300, TimelineView::kRulerHeight + 5);
  sendMouse(view.viewport(), QEvent::MouseButtonPress, band, Qt::LeftButton);
  sendMouse(view.viewport(), QEvent::MouseMove, band - QPoint(100, 0), Qt::LeftButton);
  sendMouse(view.viewport(), QEvent::MouseButtonRelease, band - QPoint(100, 0), Qt::LeftButton);
  EXPECT_EQ(dropped.count(), 2);
  EXPECT_GT(view.visibleStartUs(), t0);
}

TEST(TimelineView, HighlightedRTasksGetAnOutline) {
  const auto trace = smallTrace();
  TimelineView view;
  view.resize(900, 500);
  view.show();
  view.setTrace(trace);
  const size_t k = 1234;
  const sim::TaskEvent& e = trace->tasks[k];
  const double dur = e.endUs - e.startUs;
  view.setVisibleRange(e.startUs - dur, e.endUs + dur);
  const int lane = view.model().laneOfTask(static_cast<int32_t>(k));
  const QPoint centre = pointOn(view, Section::Primary, lane, e.startUs + 0.5 * dur);
  // Two pixels left of the box: the outline's outer column.
  const QPoint edge(static_cast<int>(std::floor(view.xOfTime(e.startUs))) - 2, centre.y());
  const QRgb before = pixelAt(view, edge);
  ASSERT_NE(before, 0xE0201Au);
  EXPECT_EQ(view.lastPaintStats().highlights, 0);

  view.highlightTasks({e.task});
  EXPECT_EQ(view.highlightedTasks(), QList<schedule::RTask>{e.task});
  EXPECT_EQ(pixelAt(view, edge), 0xE0201Au);
  // The box itself keeps its operator's colour inside the frame.
  EXPECT_EQ(pixelAt(view, centre), view.model().opColor(e.task.op));
  EXPECT_GE(view.lastPaintStats().highlights, 1);

  view.highlightTasks({});
  EXPECT_EQ(pixelAt(view, edge), before);
  EXPECT_EQ(view.lastPaintStats().highlights, 0);
  // A new trace drops the highlight.
  view.highlightTasks({e.task});
  view.setTrace(trace);
  EXPECT_TRUE(view.highlightedTasks().isEmpty());
}

// A path: each rTask outlined, and an arrow from one's end to the next's
// start, its head at the second rTask.
TEST(TimelineView, APathGetsAnArrowFromEachRTasksEndToTheNextsStart) {
  const auto trace = smallTrace();
  TimelineView view;
  view.resize(900, 500);
  view.show();
  view.setTrace(trace);
  const sim::TaskEvent& e = trace->tasks[1234];
  const int lane = view.model().laneOfTask(1234);
  // The next rTask to start after e ends, two lanes down.
  int32_t next = -1;
  for (size_t i = 0; i < trace->tasks.size(); ++i) {
    const sim::TaskEvent& f = trace->tasks[i];
    if (view.model().laneOfTask(static_cast<int32_t>(i)) == lane + 2 && f.startUs > e.endUs &&
        (next < 0 || f.startUs < trace->tasks[static_cast<size_t>(next)].startUs))
      next = static_cast<int32_t>(i);
  }
  ASSERT_GE(next, 0);
  const sim::TaskEvent& f = trace->tasks[static_cast<size_t>(next)];
  const double dur = f.endUs - e.startUs;
  view.setVisibleRange(e.startUs - 0.5 * dur, f.endUs + 0.5 * dur);
  const QPoint a = pointOn(view, Section::Primary, lane, e.endUs);
  const QPoint b(static_cast<int>(std::floor(view.xOfTime(f.startUs))), *view.yOfLane(Section::Primary, lane + 2));
  ASSERT_GT(b.x() - a.x(), 20) << "room for an arrow";
  // Inside the head, 4 px before its tip on the line from a to b.
  const QPointF u = QPointF(b - a) / std::hypot(b.x() - a.x(), b.y() - a.y());
  const QPoint head = (QPointF(b) - 4.0 * u).toPoint();
  const QRgb before = pixelAt(view, head);

  view.highlightPath({e.task, f.task});
  EXPECT_EQ(view.highlightedTasks(), (QList<schedule::RTask>{e.task, f.task}));
  EXPECT_EQ(view.pathArrows(), 1);
  const QRgb drawn = pixelAt(view, head);  // paints
  EXPECT_EQ(view.lastPaintStats().highlights, 2);
  EXPECT_EQ(view.lastPaintStats().arrows, 1);
  EXPECT_NE(drawn, before);
  EXPECT_GT(qRed(drawn), 0xC0) << std::hex << drawn;
  EXPECT_LT(qGreen(drawn), 0x60) << std::hex << drawn;

  // Outlines alone draw no arrow, and an empty path clears both.
  view.highlightTasks({e.task, f.task});
  EXPECT_EQ(pixelAt(view, head), before);
  EXPECT_EQ(view.lastPaintStats().arrows, 0);
  view.highlightPath({});
  pixelAt(view, head);
  EXPECT_EQ(view.lastPaintStats().highlights, 0);
  EXPECT_EQ(view.pathArrows(), 0);
}

}  // namespace
}  // namespace rammer::viz
