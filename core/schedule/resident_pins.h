#pragma once
// Persistent cells (issue #45 item 3): a recurrent cell's rKernel may keep
// its rTask's slice of the weights in the vEU's shared memory
// (kernels::RKernel::residentBytes), where the next step's rTask of the
// same index finds it if it runs on the same vEU. Each slice (a value and
// an rTask index) gets a home vEU that every step's rTask of it is placed
// on: the values in the order the policy first places them, their slices
// side by side, so two layers do not evict each other while a program has
// vEUs for both. Persistent RNNs (Diamos et al., ICML'16) pin a layer's
// weights to blocks for all steps the same way. Only time depends on it:
// an rKernel that finds another slice loads its own.
//
// The policies ask PlanBuilder::pinnedVEU, which answers a schedule edit's
// pin first and a home otherwise, so they place the rest of a wave around
// the homes; PlanBuilder::finish moves the steps placed before a value's
// homes moved (a candidate of more rTasks asked later) to the final ones.
#include <cstdint>
#include <map>
#include <string>

#include "core/kernels/rkernel.h"

namespace rammer::schedule {

class ResidentHomes {
 public:
  // The home of rTask `rtask` of `kernel` on a program of `numVEUs` vEUs;
  // -1 when the rKernel keeps nothing resident.
  int home(const kernels::RKernel& kernel, int64_t rtask, int numVEUs);
  // Slices given a home so far.
  int64_t slices() const { return next_; }

 private:
  struct Range {
    int64_t first = 0, count = 0;  // the value's slices among all slices
  };
  std::map<std::string, Range> first_;
  int64_t next_ = 0;
};

}  // namespace rammer::schedule
