#pragma once
// What the profiler tests share: whether this machine has a CUDA driver
// (the no-GPU checks only hold without one) and CUPTI.
#include <dlfcn.h>

#include "profiler/cupti_loader.h"

namespace rammer::testing {

inline bool cudaDriverInstalled() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

// The toolkit's CUPTI, or null (the test then skips).
inline std::shared_ptr<const profiler::CuptiLibrary> loadCupti() {
  auto c = profiler::CuptiLibrary::load();
  return c.ok() ? c.value() : nullptr;
}

}  // namespace rammer::testing
