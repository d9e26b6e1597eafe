#pragma once
// Decides, without timeouts, that a program of the emulator can never
// finish: every worker thread has looked at all of its vEUs, found each
// finished or blocked on a barrier, and no instruction completed anywhere
// since they looked. Then no barrier can ever be released (only completions
// release them), so the wait is a deadlock rather than a slow run.
//
// Protocol: a worker that completes instructions calls noteProgress() after
// publishing their step counters; a worker that makes a whole pass without
// running anything, and sees epoch() unchanged from the pass's start to its
// end, reports stalled(epoch). Because the epoch is bumped only after the
// step stores it counts, a worker that read epoch e saw every completion
// counted in e; so if all workers report the same e and the epoch is still
// e, none of them can find work again.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace rammer::exec {

class StallDetector {
 public:
  explicit StallDetector(int workers);

  // Before a program starts, while no worker runs.
  void reset();

  uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }
  // After a batch of completed instructions (their steps already stored).
  void noteProgress() { epoch_.fetch_add(1, std::memory_order_acq_rel); }

  // `worker` found nothing to run during a pass over which the epoch stayed
  // at `seen`. True when this makes every worker stalled or finished at the
  // current epoch with at least one stalled: a deadlock.
  bool stalled(int worker, uint64_t seen);
  // `worker` has finished all its vEUs for this program. True when the
  // others are all stalled at the current epoch (a deadlock they did not
  // see because this worker had not finished yet).
  bool finished(int worker);

 private:
  bool everyoneStuckLocked() const;

  static constexpr uint64_t kNone = UINT64_MAX;
  std::atomic<uint64_t> epoch_{0};
  mutable std::mutex mutex_;
  std::vector<uint64_t> stalledAt_;  // per worker: the epoch it reported, kNone
  std::vector<bool> finished_;
};

}  // namespace rammer::exec
