#pragma once
// What the compiler (ptxas) says one __global__ kernel uses, read back from
// its verbose log (and, on a GPU, from the driver). These numbers, not the rKernels'
// estimates, decide how many vEUs of a program fit on an SM.
#include <cstdint>

namespace rammer::runtime {

struct KernelResourceUsage {
  int registers = 0;             // per thread
  int64_t staticSharedBytes = 0;  // __shared__ arrays ("bytes smem")
  int64_t stackBytes = 0;        // stack frame per thread (local memory)
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int barriers = 0;              // named hardware barriers
};

}  // namespace rammer::runtime
