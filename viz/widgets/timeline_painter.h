#pragma once
// Paints a timeline frame, level of detail first: each visible lane asks
// its TimelineLaneIndex for at most one mark per pixel column, and marks
// are written straight into a raster, so a frame costs O(visible lanes x
// pixel columns) however many rTasks the trace holds. Labels are drawn
// only where they fit; rows get SM shading, program boundaries are lines,
// barrier waits are hatched; a selection fades the other operators; a
// highlighted path gets an arrow per hand-off, drawn over the raster.
#include <QFont>
#include <QPainter>
#include <cstdint>
#include <optional>
#include <vector>

#include "viz/models/timeline_area_summary.h"
#include "viz/models/timeline_lane_index.h"
#include "viz/models/timeline_model.h"
#include "viz/models/trace_comparison.h"
#include "viz/widgets/timeline_geometry.h"
#include "viz/widgets/timeline_raster.h"

namespace rammer::viz {

// What the last paint did; tests assert on these counts, never on time.
struct TimelinePaintStats {
  int64_t marks = 0;        // boxes written (rTask, barrier and selection marks)
  int64_t queries = 0;      // level-of-detail queries (one per lane and layer)
  int64_t lanes = 0;        // lane rows painted
  int64_t labels = 0;       // op names drawn inside boxes
  int64_t highlights = 0;   // outlines drawn around highlighted rTasks
  int64_t arrows = 0;       // path arrows drawn (some end may lie off screen)
  bool dropMarker = false;  // a task drag's drop marker was drawn
  int plotWidth = 0;        // pixel columns of the time axis
};

// An area selection as drawn: a box over lanes of one section, and its summary.
struct TimelineAreaBox {
  TimelineSection section;
  double t0Us, t1Us;
  int firstLane, lastLane;
};

// Everything one frame shows.
struct TimelineScene {
  const TimelineModel* primary = nullptr;
  const TimelineModel* secondary = nullptr;  // the comparison, when there is one
  // rTasks of the selected ops in each trace; empty selection: nothing faded.
  bool hasSelection = false;
  const TimelineLaneIndex* selectedPrimary = nullptr;
  const TimelineLaneIndex* selectedSecondary = nullptr;
  // Comparison rTasks coloured by slip (else by operator).
  const TraceComparison* comparison = nullptr;
  bool slipColouring = true;
  double slipScaleUs = 1;
  const std::vector<int32_t>* highlighted = nullptr;  // main-trace rTask indices to outline
  // Main-trace rTask index pairs: an arrow from the first's end to the second's start.
  const std::vector<std::pair<int32_t, int32_t>>* arrows = nullptr;
  struct Drop {
    int lane;
    int x;
  };
  std::optional<Drop> drop;  // where a dragged rTask would land
  std::optional<TimelineAreaBox> area;
  const AreaSummary* areaSummary = nullptr;
  QFont font;
};

class TimelinePainter {
 public:
  // Paints `scene` laid out by `g` onto `target` (the whole viewport).
  const TimelinePaintStats& paint(QPainter& target, const TimelineGeometry& g, const TimelineScene& scene);
  const TimelinePaintStats& stats() const { return stats_; }

 private:
  struct Label {
    QRect rect;
    int32_t op;
    const TimelineModel* model;
    uint32_t fill;  // the box colour, to pick a readable text colour
  };
  enum class Layer { Barriers, Tasks, Selection };

  void paintLanes(const TimelineGeometry::SectionRows& s);
  void paintLaneMarks(const TimelineModel& model, const TimelineLaneIndex& index, int lane, int y0, int y1, Layer layer,
                      bool comparisonLayer, bool withLabels);
  void paintProgramLines(const TimelineGeometry::SectionRows& s);
  void paintHighlights();
  void paintArrows(QPainter& p);
  void paintDropMarker();
  void paintLabels(QPainter& p);
  void paintHeader(QPainter& p, const TimelineGeometry::SectionRows& s) const;
  void paintRuler(QPainter& p) const;
  void paintArea(QPainter& p) const;
  uint32_t markColor(const TimelineModel& model, const TimelineMark& m, bool comparisonLayer,
                     bool selectionLayer) const;

  const TimelineGeometry* g_ = nullptr;
  const TimelineScene* s_ = nullptr;
  TimelineRaster raster_;
  LodQuery lod_;                     // this paint's pixel mapping
  std::vector<TimelineMark> marks_;  // reused by every lane query
  std::vector<Label> labels_;
  TimelinePaintStats stats_;
};

}  // namespace rammer::viz
