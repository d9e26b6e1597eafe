#pragma once
// The rTasks a timeline outlines (a refused edit's victims, a diagnostic's
// rTask, a critical path) as indices into one trace's tasks, and for a
// path the arrows between consecutive rTasks: a producer's end to its
// consumer's start, where the path's time goes between rTasks.
#include <cstdint>
#include <utility>
#include <vector>

#include "core/schedule/rtask.h"
#include "core/sim/trace.h"

namespace rammer::viz {

class TimelineHighlights {
 public:
  // Outlines those of `tasks` that `trace` holds; with `path`, also an
  // arrow from each one to the next (both in the trace).
  void set(const sim::Trace& trace, std::vector<schedule::RTask> tasks, bool path);
  void clear();

  const std::vector<schedule::RTask>& tasks() const { return tasks_; }  // as given
  const std::vector<int32_t>& indices() const { return indices_; }      // trace.tasks indices, in trace order
  const std::vector<std::pair<int32_t, int32_t>>& arrows() const { return arrows_; }  // from -> to

 private:
  std::vector<schedule::RTask> tasks_;
  std::vector<int32_t> indices_;
  std::vector<std::pair<int32_t, int32_t>> arrows_;
};

}  // namespace rammer::viz
