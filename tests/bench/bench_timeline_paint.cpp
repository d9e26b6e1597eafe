// Timeline painting with 1,000,000 rTasks (132 SMs x 8 vEUs, synthetic):
// time to build the model and to paint the view at several zoom levels,
// with the number of marks painted. Runs offscreen; prints a Markdown table
// for docs/PERFORMANCE.md.
//   build/bin/rammer-bench-timeline-paint [--tasks N] [--repeat R] [--only K] [--png DIR]
// (--only K: just the K-th view of the table, for profiling)
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QScrollBar>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/bench/bench_clock.h"
#include "tests/viz/timeline_test_traces.h"
#include "viz/widgets/timeline_view.h"

using namespace rammer;

namespace {

double msSince(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

// This thread's CPU time: on a busy (shared, 2-core) machine it says more
// about the code than wall time does.
double threadCpuMs() { return 1e3 * bench::threadCpuSeconds(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Scenario {
  const char* name;
  int laneHeight;
  double zoom;  // visible span / whole trace
  bool selection = false;
  bool overlay = false;
};

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  int64_t tasks = 1'000'000;
  int repeat = 7;
  std::string pngDir;
  int only = -1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--tasks") && i + 1 < argc) tasks = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--png") && i + 1 < argc) pngDir = argv[++i];
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = std::atoi(argv[++i]);
  }

  QElapsedTimer timer;
  timer.start();
  viztest::SyntheticTraceOptions options;
  options.tasks = tasks;
  const auto trace = viztest::makeSyntheticTrace(options);
  const double genMs = msSince(timer);
  timer.restart();
  const viz::TimelineModel model(trace);
  const double modelMs = msSince(timer);

  // Level-of-detail queries alone: every lane at fit, 1600 columns.
  std::vector<viz::TimelineMark> marks;
  viz::LodQuery q{model.startUs(), (model.endUs() - model.startUs()) / 1600, 0, 1600};
  std::vector<double> lodMs;
  int64_t lodMarks = 0;
  for (int r = 0; r < repeat; ++r) {
    timer.restart();
    lodMarks = 0;
    for (int lane = 0; lane < model.numLanes(); ++lane) {
      marks.clear();
      model.tasks().marks(lane, q, marks);
      lodMarks += static_cast<int64_t>(marks.size());
    }
    lodMs.push_back(msSince(timer));
  }

  viz::TimelineView view;
  view.resize(1600, 1200);
  view.show();
  timer.restart();
  view.setTrace(trace);
  const double setTraceMs = msSince(timer);
  const auto measured = viztest::makeMeasuredCopy(*trace);
  timer.restart();
  view.setComparisonTrace(measured);
  const double comparisonMs = msSince(timer);
  view.setComparisonTrace(nullptr);

  std::printf("Timeline, %lld rTasks + %zu barrier waits, %d lanes (132 SMs x 8 vEUs), view 1600x1200 offscreen\n\n",
              static_cast<long long>(trace->tasks.size()), trace->barriers.size(), model.numLanes());
  std::printf("| step | ms |\n|---|---:|\n");
  std::printf("| generate synthetic trace | %.0f |\n", genMs);
  std::printf("| build TimelineModel (lanes, per-lane index) | %.0f |\n", modelMs);
  std::printf("| TimelineView::setTrace (model + fit) | %.0f |\n", setTraceMs);
  std::printf("| setComparisonTrace (match %zu rTasks, build lanes) | %.0f |\n", measured->tasks.size(), comparisonMs);
  std::printf("| LOD query, all %d lanes at fit, 1600 columns (%lld marks) | %.1f |\n\n", model.numLanes(),
              static_cast<long long>(lodMarks), median(lodMs));

  const Scenario scenarios[] = {
      {"fit, 14 px lanes", 14, 1.0},
      {"fit, all 1056 lanes at 1 px", 1, 1.0},
      {"zoom x10", 14, 0.1},
      {"zoom x100", 14, 0.01},
      {"zoom x10000", 14, 1e-4},
      {"fit, 1 px lanes, one op selected", 1, 1.0, true},
      {"fit, 1 px lanes, overlay with measured", 1, 1.0, false, true},
  };
  std::printf(
      "| view | lanes painted | marks painted | labels | paint ms, wall (median of %d) | paint ms, CPU |\n"
      "|---|---:|---:|---:|---:|---:|\n",
      repeat);
  for (const Scenario& s : scenarios) {
    if (only >= 0 && &s - scenarios != only) continue;
    view.setComparisonTrace(s.overlay ? measured : nullptr);
    view.setCompareMode(viz::TimelineView::CompareMode::Overlay);
    view.selectOps(s.selection ? QList<int>{5} : QList<int>{});
    view.setLaneHeight(s.laneHeight);
    view.verticalScrollBar()->setValue(0);
    const double mid = 0.5 * (model.startUs() + model.endUs());
    const double span = (model.endUs() - model.startUs()) * s.zoom;
    view.setVisibleRange(mid - span / 2, mid + span / 2);
    std::vector<double> ms;
    std::vector<double> cpu;
    QImage image;
    for (int r = 0; r < repeat; ++r) {
      timer.restart();
      const double c0 = threadCpuMs();
      image = view.viewport()->grab().toImage();
      cpu.push_back(threadCpuMs() - c0);
      ms.push_back(msSince(timer));
    }
    const auto& st = view.lastPaintStats();
    std::printf("| %s | %lld | %lld | %lld | %.1f | %.1f |\n", s.name, static_cast<long long>(st.lanes),
                static_cast<long long>(st.marks), static_cast<long long>(st.labels), median(ms), median(cpu));
    if (!pngDir.empty()) {
      std::string file = pngDir + "/timeline_" + std::to_string(&s - scenarios) + ".png";
      view.grab().save(QString::fromStdString(file));
    }
  }
  return 0;
}
