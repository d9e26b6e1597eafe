#pragma once
// Where things are in a timeline view, for painting and for hit tests
// alike: the time axis (header column, then pixel columns mapped to the
// visible window) and the rows (ruler, then per section a header band and
// one row per lane; overlay mode halves each row, the main trace on top).
// A value computed from the view's state; content y counts from the top of
// the first section, viewport y from the top of the widget.
#include <optional>
#include <utility>
#include <vector>

#include "viz/models/timeline_model.h"

namespace rammer::viz {

// Which trace a row belongs to: the main one (usually the prediction) or
// the comparison (usually the measurement).
enum class TimelineSection { Primary, Comparison };

struct TimelineGeometry {
  static constexpr int kHeaderWidth = 112;
  static constexpr int kRulerHeight = 24;
  static constexpr int kSectionHeaderHeight = 18;

  struct SectionRows {
    TimelineSection section;
    const TimelineModel* model;
    int headerY;  // content y of the section's header band
    int lanesY;   // content y of its first lane
    int lanes;    // rows drawn (overlay: the larger of the two traces' lanes)
  };
  struct RowHit {
    TimelineSection section = TimelineSection::Primary;
    int lane = -1;
    bool lowerHalf = false;  // overlay: the comparison's half
  };

  // `secondary` null: one section. `overlay`: the comparison in the lower
  // half of the main trace's rows; else in a section of its own below.
  TimelineGeometry(int width, int height, int scrollY, int laneHeight, double t0Us, double spanUs,
                   const TimelineModel& primary, const TimelineModel* secondary, bool overlay);

  int width, height, scrollY, laneHeight;
  double t0Us, spanUs;
  bool overlay;  // overlay mode with a comparison
  std::vector<SectionRows> sections;

  int plotWidth() const { return width > kHeaderWidth + 1 ? width - kHeaderWidth : 1; }
  double usPerPx() const { return spanUs / plotWidth(); }
  double timeAtX(int x) const { return t0Us + (x - kHeaderWidth) * usPerPx(); }
  double xOfTime(double tUs) const { return kHeaderWidth + (tUs - t0Us) / usPerPx(); }
  int toViewport(int contentY) const { return kRulerHeight + contentY - scrollY; }
  int contentHeight() const;

  std::optional<RowHit> rowAt(int viewportY) const;
  // Vertical centre of a lane row (overlay: of its half), in viewport y.
  std::optional<int> yOfLane(TimelineSection section, int lane, int laneCount) const;
  // Viewport y range [top, bottom) of a main-trace lane row (overlay: its upper half).
  std::pair<int, int> primaryRowSpan(int lane) const;
  const SectionRows* sectionOf(TimelineSection section) const;
};

}  // namespace rammer::viz
