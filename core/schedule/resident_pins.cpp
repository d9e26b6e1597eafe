#include "core/schedule/resident_pins.h"

namespace rammer::schedule {

int ResidentHomes::home(const kernels::RKernel& kernel, int64_t rtask, int numVEUs) {
  if (kernel.residentBytes <= 0 || kernel.residentValue.empty() || numVEUs <= 0 || rtask < 0) return -1;
  auto [it, added] = first_.try_emplace(kernel.residentValue, Range{next_, 0});
  if (it->second.count < kernel.numRTasks) {  // new, or a candidate with more rTasks than the one first asked about
    it->second = Range{next_, kernel.numRTasks};
    next_ += kernel.numRTasks;
  }
  return static_cast<int>((it->second.first + rtask) % numVEUs);
}

}  // namespace rammer::schedule
