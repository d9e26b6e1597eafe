#include "core/schedule/plan.h"

namespace rammer::schedule {

size_t Plan::numRTasks() const {
  size_t n = 0;
  for (const auto& p : programs) n += p.program.numTasks();
  return n;
}

}  // namespace rammer::schedule
