#include "core/exec/stall_detector.h"

#include <algorithm>

namespace rammer::exec {

StallDetector::StallDetector(int workers)
    : stalledAt_(static_cast<size_t>(workers > 0 ? workers : 0), kNone),
      finished_(static_cast<size_t>(workers > 0 ? workers : 0), false) {}

void StallDetector::reset() {
  std::lock_guard lock(mutex_);
  std::fill(stalledAt_.begin(), stalledAt_.end(), kNone);
  std::fill(finished_.begin(), finished_.end(), false);
}

bool StallDetector::stalled(int worker, uint64_t seen) {
  std::lock_guard lock(mutex_);
  stalledAt_.at(static_cast<size_t>(worker)) = seen;
  return everyoneStuckLocked();
}

bool StallDetector::finished(int worker) {
  std::lock_guard lock(mutex_);
  finished_.at(static_cast<size_t>(worker)) = true;
  return everyoneStuckLocked();
}

bool StallDetector::everyoneStuckLocked() const {
  // A report from an older epoch is stale: that worker may have work now.
  const uint64_t now = epoch_.load(std::memory_order_acquire);
  size_t stuck = 0;
  for (size_t w = 0; w < finished_.size(); ++w) {
    if (finished_[w]) continue;
    if (stalledAt_[w] != now) return false;
    ++stuck;
  }
  return stuck > 0;
}

}  // namespace rammer::exec
