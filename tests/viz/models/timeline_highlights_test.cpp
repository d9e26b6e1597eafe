// What the timeline outlines: the given rTasks the trace holds, as its
// indices in trace order; a path adds an arrow between each two
// consecutive rTasks that are both in the trace, in the path's order.
#include "viz/models/timeline_highlights.h"

#include <gtest/gtest.h>

namespace rammer::viz {
namespace {

using schedule::RTask;

sim::Trace traceOf(const std::vector<RTask>& tasks) {
  sim::Trace t;
  for (const RTask& r : tasks) {
    sim::TaskEvent e;
    e.task = r;
    t.tasks.push_back(e);
  }
  return t;
}

TEST(TimelineHighlights, APathGetsAnArrowBetweenConsecutiveRTasksOfTheTrace) {
  const sim::Trace t = traceOf({{0, 0}, {1, 0}, {2, 0}, {1, 1}});
  TimelineHighlights h;
  h.set(t, {{2, 0}, {0, 0}, {1, 1}}, true);
  EXPECT_EQ(h.indices(), (std::vector<int32_t>{0, 2, 3}));  // in trace order
  EXPECT_EQ(h.arrows(), (std::vector<std::pair<int32_t, int32_t>>{{2, 0}, {0, 3}}));
  EXPECT_EQ(h.tasks(), (std::vector<RTask>{{2, 0}, {0, 0}, {1, 1}}));
  // An rTask the trace lacks is kept as given but neither outlined nor linked.
  h.set(t, {{0, 0}, {9, 9}, {2, 0}}, true);
  EXPECT_EQ(h.indices(), (std::vector<int32_t>{0, 2}));
  EXPECT_TRUE(h.arrows().empty());
  EXPECT_EQ(h.tasks().size(), 3u);
}

TEST(TimelineHighlights, OutlinesAloneHaveNoArrowsAndClearEmptiesAll) {
  const sim::Trace t = traceOf({{0, 0}, {1, 0}});
  TimelineHighlights h;
  h.set(t, {{0, 0}, {1, 0}}, false);
  EXPECT_EQ(h.indices().size(), 2u);
  EXPECT_TRUE(h.arrows().empty());
  h.clear();
  EXPECT_TRUE(h.tasks().empty() && h.indices().empty() && h.arrows().empty());
}

}  // namespace
}  // namespace rammer::viz
