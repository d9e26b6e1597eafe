#pragma once
// How many blocks (vEUs) of one kernel fit on an SM at once, from its block
// size, registers per thread and shared memory per block. Follows the rules
// of NVIDIA's occupancy calculator with the default cache configuration and
// shared memory opted in when a block needs more than the default limit.
#include <cstdint>
#include <string>

#include "core/device/device_spec.h"

namespace rammer::device {

struct KernelResources {
  int threadsPerBlock = 0;
  int regsPerThread = 0;
  int64_t sharedBytesPerBlock = 0;  // static + dynamic
};

enum class OccupancyLimit { Warps, Registers, SharedMemory, Blocks };

struct Occupancy {
  int blocksPerSM = 0;  // 0: the kernel cannot run with these resources
  int limitByWarps = 0;
  int limitByRegisters = 0;
  int limitBySharedMemory = 0;
  int limitByBlocks = 0;
  OccupancyLimit limitedBy = OccupancyLimit::Blocks;
  int activeWarpsPerSM = 0;
  double occupancy = 0;  // active warps / maximum warps per SM
  int regsAllocatedPerBlock = 0;
  int64_t sharedAllocatedPerBlock = 0;
  std::string whyNone;  // set when blocksPerSM == 0
};

Occupancy computeOccupancy(const DeviceSpec& device, const KernelResources& kernel);
std::string limitName(OccupancyLimit l);

}  // namespace rammer::device
