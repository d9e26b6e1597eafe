#pragma once
// Critical-path order (issue #45 item 1): the order each vEU runs its rTasks
// in, chosen by a list schedule over the program in estimated time. The
// policy has placed every rTask on a vEU; this pass only orders them. Each
// operator's priority is its bottom level, the longest estimated path from
// its start to the program's end (its rTask time, a hand-off to each
// consumer, the consumer's bottom level), so a vEU runs the rTask on the
// longest remaining chain first instead of in the policy's append order,
// and a critical rTask no longer waits behind work that could wait: in the
// fifth H100 lease, lstm_tc's cells queued behind input projections that
// were themselves waiting for their input.
//
// The list schedule: the vEU that frees first takes, of its rTasks whose
// producers have run (plus a hand-off), the one with the highest bottom
// level; with none ready, it idles until one is (time advances vEU by vEU
// in order, so nothing more urgent is released behind its back).
// Dependencies are whole operators (an rTask is ready once every rTask of
// its producers has run), as the rProgram's barriers wait for them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/schedule/rtask.h"

namespace rammer::schedule {

struct OrderProblem {
  int numVEUs = 0;
  std::vector<std::pair<RTask, int>> placements;  // (rTask, vEU), the policy's append order
  // The operators each operator waits for inside the program.
  std::function<const std::vector<int32_t>&(int32_t op)> deps;
  std::function<double(int32_t op)> taskUs;  // one rTask's estimated time
  double handoffUs = 0;                      // a producer's end to its consumer's start
};

// The rTasks in the order the list schedule runs them (every placement
// once; per vEU, the order it runs its own), or the policy's placements
// when those are estimated to end no later.
std::vector<std::pair<RTask, int>> criticalPathOrder(const OrderProblem& problem);

// The list schedule's order alone, whether or not it ends sooner.
std::vector<std::pair<RTask, int>> listScheduleOrder(const OrderProblem& problem);

// When `order` (a topological order of the placements) ends, each vEU
// running its rTasks in it: the estimate both orders are judged by.
double estimatedMakespanUs(const OrderProblem& problem, const std::vector<std::pair<RTask, int>>& order);

}  // namespace rammer::schedule
