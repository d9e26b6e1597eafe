#pragma once
// Vector clocks of one rProgram: after each barrier, the highest order of
// every vEU known complete there (a barrier chain leads from that slot to
// it). Knowledge is cumulative along a vEU and closed: knowing slot s of vEU
// u implies knowing what u knew at s. The validator judges dependencies with
// it; BarrierRemoval re-derives part of it without one barrier.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "core/schedule/rprogram.h"

namespace rammer::schedule {

// Per vEU: highest order known complete, -1 when none.
using Knowledge = std::vector<int32_t>;

// into[u] = max(into[u], other[u]) for every vEU: the validator's inner loop.
void joinKnowledge(Knowledge& into, const Knowledge& other);

// Per operator: the last slot of its rTasks on each vEU of a program, vEUs
// ascending; only rTasks `counts` accepts. A consumer must know these.
struct LastSlot {
  int veu = -1;
  int32_t order = -1;
  RTask task;
};
using LastSlots = std::unordered_map<int32_t, std::vector<LastSlot>>;
LastSlots lastSlotsByOp(const RProgram& prog, const std::function<bool(RTask)>& counts);

class OrderingClocks {
 public:
  struct BarrierClock {
    int32_t order = -1;     // the barrier's place in its vEU's stream
    int32_t snapshot = -1;  // what its vEU knows once past it
    int32_t rank = -1;      // position in a happens-before order of all passed barriers
  };

  explicit OrderingClocks(const RProgram& prog);

  // The barriers each vEU gets past, in stream order. A vEU stuck at a
  // barrier (a deadlock) lists only those before it.
  const std::vector<BarrierClock>& barriers(int veu) const { return barriers_[static_cast<size_t>(veu)]; }
  // Per vEU, the first order it never passes (its stream size when it finishes).
  const std::vector<size_t>& progress() const { return progress_; }
  // The barrier in force at (veu, order), as an index into barriers(veu):
  // the latest at or before it; -1 when the vEU has passed none.
  int32_t barrierIndexAt(int veu, int32_t order) const;
  const Knowledge& snapshot(int32_t id) const { return snapshots_[static_cast<size_t>(id)]; }
  // Whether slot (veu, order) is known complete under `snapshot` (-1: nothing is).
  bool knows(int32_t snapshot, int veu, int32_t order) const {
    return snapshot >= 0 && snapshots_[static_cast<size_t>(snapshot)][static_cast<size_t>(veu)] >= order;
  }

 private:
  int32_t intern(const Knowledge& k);

  std::vector<std::vector<BarrierClock>> barriers_;
  std::vector<size_t> progress_;
  std::vector<Knowledge> snapshots_;
  std::unordered_map<size_t, std::vector<int32_t>> interned_;
};

}  // namespace rammer::schedule
