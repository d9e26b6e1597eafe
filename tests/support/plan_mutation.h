#pragma once
// Plan edits for the validator's mutation tests.
#include <algorithm>
#include <functional>
#include <memory>
#include <variant>

#include "core/schedule/plan.h"

namespace rammer::testing {

// The plan with the barrier at `at` of `program` deleted; waits on later
// slots of that vEU are renumbered.
inline schedule::Plan withoutBarrier(const schedule::Plan& plan, size_t program, schedule::Slot at) {
  schedule::Plan out = plan;
  auto streams = plan.programs[program].program.streams();
  auto& stream = streams[static_cast<size_t>(at.veu)];
  stream.erase(stream.begin() + at.order);
  for (auto& s : streams)
    for (schedule::Instr& in : s)
      if (auto* b = std::get_if<schedule::Barrier>(&in))
        for (schedule::Slot& w : b->waits)
          if (w.veu == at.veu && w.order > at.order) --w.order;
  out.programs[program].program = schedule::RProgram::fromStreams(std::move(streams));
  return out;
}

}  // namespace rammer::testing

namespace rammer::testing {

// The plan with two vEUs of `program` waiting on each other before their
// first instruction: vEU `a` for `b`'s last instruction and `b` for `a`'s.
// A deadlock the validator would refuse, to force past it in runtime tests.
inline schedule::Plan withWaitCycle(const schedule::Plan& plan, size_t program, int32_t a, int32_t b) {
  schedule::Plan out = plan;
  auto streams = plan.programs[program].program.streams();
  for (auto& s : streams)
    for (schedule::Instr& in : s)
      if (auto* barrier = std::get_if<schedule::Barrier>(&in))
        for (schedule::Slot& w : barrier->waits)
          if (w.veu == a || w.veu == b) ++w.order;
  auto& sa = streams[static_cast<size_t>(a)];
  auto& sb = streams[static_cast<size_t>(b)];
  const auto lastA = static_cast<int32_t>(sa.size()), lastB = static_cast<int32_t>(sb.size());
  sa.insert(sa.begin(), schedule::Barrier{{schedule::Slot{b, lastB}}});
  sb.insert(sb.begin(), schedule::Barrier{{schedule::Slot{a, lastA}}});
  out.programs[program].program = schedule::RProgram::fromStreams(std::move(streams));
  return out;
}

// The plan with dynamic program `program` changed by `edit` (a plan's
// dynamic programs are shared and const).
inline schedule::Plan withDynamicEdit(const schedule::Plan& plan, size_t program,
                                      const std::function<void(schedule::DynamicProgram&)>& edit) {
  schedule::Plan out = plan;
  auto dp = std::make_shared<schedule::DynamicProgram>(*plan.programs[program].dynamic);
  edit(*dp);
  out.programs[program].dynamic = std::move(dp);
  return out;
}

// The dynamic program without the dependency edge from operator `producer`
// to `consumer` (indices into its ops): the producer no longer counts at
// the consumer's gate, and a consumer left without a gate is queued at
// launch. Valid to run, but the consumer may read what is not written yet.
inline void dropEdge(schedule::DynamicProgram& dp, size_t producer, size_t consumer) {
  auto& list = dp.ops[producer].consumers;
  list.erase(std::find(list.begin(), list.end(), static_cast<int32_t>(consumer)));
  dp.ops[consumer].gate -= dp.ops[producer].rtasks;
  if (dp.ops[consumer].gate == 0) dp.initial.push_back(static_cast<int32_t>(consumer));
}

}  // namespace rammer::testing
