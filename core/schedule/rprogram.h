#pragma once
// An rProgram: prog[vEU][order] of instructions for one persistent kernel
// launch. Built only through Rammer's two primitives:
//   wait(task, deps)   the task may start only after every dep has finished;
//   append(task, vEU)  the task runs next on that vEU.
// wait() is called before append() (as in the paper's Algorithm 1); append()
// then emits a barrier-rTask in front of the task unless program order
// already implies every dep.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/schedule/rtask.h"

namespace rammer::schedule {

// Instruction `order` of vEU `veu` within one program.
struct Slot {
  int32_t veu = -1;
  int32_t order = -1;
  friend bool operator==(const Slot&, const Slot&) = default;
  friend auto operator<=>(const Slot&, const Slot&) = default;
};

struct Exec {
  RTask task;
};
// Waits until the instruction at each slot (on other vEUs) has completed.
struct Barrier {
  std::vector<Slot> waits;
};
using Instr = std::variant<Exec, Barrier>;

class RProgram {
 public:
  explicit RProgram(int numVEUs = 0);

  int numVEUs() const { return static_cast<int>(streams_.size()); }
  const std::vector<Instr>& stream(int veu) const { return streams_.at(static_cast<size_t>(veu)); }
  const std::vector<std::vector<Instr>>& streams() const { return streams_; }

  // Registers the deps `task` must wait for. Deps not placed in this program
  // (earlier programs, finished at the kernel boundary) are ignored.
  void wait(RTask task, const std::vector<RTask>& deps);
  // Appends `task` to `veu`, preceded by a barrier for its pending deps that
  // the vEU does not already know to be complete. Of several deps on one vEU
  // only the last is kept (a vEU runs its stream in order).
  Slot append(RTask task, int veu);

  // Where a task was placed; Slot{-1,-1} when not in this program.
  Slot slotOf(RTask task) const;
  bool contains(RTask task) const { return placed_.count(task) != 0; }
  size_t numTasks() const { return placed_.size(); }
  size_t numBarriers() const { return barriers_; }
  // Longest stream, in instructions.
  size_t depth() const;

  // For edits and tests: a raw instruction list, validated separately.
  static RProgram fromStreams(std::vector<std::vector<Instr>> streams);

 private:
  std::vector<std::vector<Instr>> streams_;
  std::unordered_map<RTask, Slot, RTaskHash> placed_;
  std::unordered_map<RTask, std::vector<RTask>, RTaskHash> pending_;
  // known_[v][u]: highest order of vEU u that vEU v has already waited for
  // (-1: none); allocated at the program's first wait, a vEU's row at its
  // first barrier (a plan of 10,000 one-rTask programs held 250 MB of rows).
  std::vector<std::vector<int32_t>> known_;
  size_t barriers_ = 0;
  std::vector<int32_t> need_, touched_;  // append's scratch, all -1 / empty between calls
};

}  // namespace rammer::schedule
