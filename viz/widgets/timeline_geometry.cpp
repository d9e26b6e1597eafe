#include "viz/widgets/timeline_geometry.h"

#include <algorithm>

namespace rammer::viz {

TimelineGeometry::TimelineGeometry(int width, int height, int scrollY, int laneHeight, double t0Us, double spanUs,
                                   const TimelineModel& primary, const TimelineModel* secondary, bool overlayMode)
    : width(width),
      height(height),
      scrollY(scrollY),
      laneHeight(laneHeight),
      t0Us(t0Us),
      spanUs(spanUs),
      overlay(overlayMode && secondary) {
  const int primaryRows = overlay ? std::max(primary.numLanes(), secondary->numLanes()) : primary.numLanes();
  sections.push_back({TimelineSection::Primary, &primary, 0, kSectionHeaderHeight, primaryRows});
  if (secondary && !overlay) {
    const int y = kSectionHeaderHeight + primaryRows * laneHeight;
    sections.push_back({TimelineSection::Comparison, secondary, y, y + kSectionHeaderHeight, secondary->numLanes()});
  }
}

int TimelineGeometry::contentHeight() const {
  const SectionRows& last = sections.back();
  return last.lanesY + last.lanes * laneHeight;
}

std::optional<TimelineGeometry::RowHit> TimelineGeometry::rowAt(int viewportY) const {
  if (viewportY < kRulerHeight) return std::nullopt;
  const int y = viewportY - kRulerHeight + scrollY;
  for (const SectionRows& s : sections) {
    const int rel = y - s.lanesY;
    if (rel >= 0 && rel < s.lanes * laneHeight) {
      RowHit hit{s.section, rel / laneHeight, false};
      hit.lowerHalf = overlay && rel % laneHeight >= laneHeight / 2;
      return hit;
    }
  }
  return std::nullopt;
}

std::optional<int> TimelineGeometry::yOfLane(TimelineSection section, int lane, int laneCount) const {
  if (lane < 0 || lane >= laneCount) return std::nullopt;
  for (const SectionRows& s : sections) {
    if (!overlay && s.section != section) continue;
    int y = s.lanesY + lane * laneHeight;
    if (!overlay)
      y += laneHeight / 2;
    else
      y += section == TimelineSection::Primary ? laneHeight / 4 : laneHeight / 2 + laneHeight / 4;
    return toViewport(y);
  }
  return std::nullopt;
}

std::pair<int, int> TimelineGeometry::primaryRowSpan(int lane) const {
  const int y = toViewport(kSectionHeaderHeight + lane * laneHeight);
  return {y, overlay ? y + (laneHeight + 1) / 2 : y + laneHeight};
}

const TimelineGeometry::SectionRows* TimelineGeometry::sectionOf(TimelineSection section) const {
  for (const SectionRows& s : sections)
    if (s.section == section) return &s;
  return nullptr;
}

}  // namespace rammer::viz
