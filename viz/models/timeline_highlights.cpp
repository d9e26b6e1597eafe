#include "viz/models/timeline_highlights.h"

#include <map>

namespace rammer::viz {

void TimelineHighlights::set(const sim::Trace& trace, std::vector<schedule::RTask> tasks, bool path) {
  clear();
  tasks_ = std::move(tasks);
  if (tasks_.empty()) return;
  std::map<schedule::RTask, int32_t> indexOf;
  for (const schedule::RTask& t : tasks_) indexOf.emplace(t, -1);
  for (size_t i = 0; i < trace.tasks.size(); ++i)
    if (auto it = indexOf.find(trace.tasks[i].task); it != indexOf.end()) {
      it->second = static_cast<int32_t>(i);
      indices_.push_back(it->second);
    }
  if (!path) return;
  for (size_t k = 1; k < tasks_.size(); ++k) {
    const int32_t from = indexOf[tasks_[k - 1]], to = indexOf[tasks_[k]];
    if (from >= 0 && to >= 0) arrows_.emplace_back(from, to);
  }
}

void TimelineHighlights::clear() {
  tasks_.clear();
  indices_.clear();
  arrows_.clear();
}

}  // namespace rammer::viz
