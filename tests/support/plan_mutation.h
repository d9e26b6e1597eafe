#pragma once
// Plan edits for the validator's mutation tests.
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
