#include "core/device/occupancy.h"

#include <algorithm>
#include <climits>

namespace rammer::device {

namespace {

int64_t roundUp(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }

// The smallest selectable shared-memory size per SM that holds `bytes`;
// -1 when none does.
int64_t carveoutFor(const DeviceSpec& d, int64_t bytes) {
  if (d.sharedCarveoutsKB.empty()) return bytes <= d.sharedPerSM ? d.sharedPerSM : -1;
  for (int kb : d.sharedCarveoutsKB)
    if (int64_t{kb} * 1024 >= bytes) return int64_t{kb} * 1024;
  return -1;
}

}  // namespace

std::string limitName(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::Warps: return "warps";
    case OccupancyLimit::Registers: return "registers";
    case OccupancyLimit::SharedMemory: return "shared memory";
    case OccupancyLimit::Blocks: return "blocks per SM";
  }
  return "?";
}

Occupancy computeOccupancy(const DeviceSpec& d, const KernelResources& k) {
  Occupancy o;
  if (k.threadsPerBlock <= 0) {
    o.whyNone = "a block needs at least one thread";
    return o;
  }
  if (k.threadsPerBlock > d.maxThreadsPerBlock) {
    o.whyNone = std::to_string(k.threadsPerBlock) + " threads per block exceed the device's " +
                std::to_string(d.maxThreadsPerBlock);
    return o;
  }
  const int warpsPerBlock = (k.threadsPerBlock + d.warpSize - 1) / d.warpSize;
  o.limitByWarps = d.maxWarpsPerSM() / warpsPerBlock;
  o.limitByBlocks = d.maxBlocksPerSM;

  // Registers go to warps in allocation units, and per sub-partition.
  const int regsPerWarp = static_cast<int>(roundUp(int64_t{k.regsPerThread} * d.warpSize, d.regAllocUnit));
  o.regsAllocatedPerBlock = regsPerWarp * warpsPerBlock;
  // The hardware check assumes every sub-partition gets the same warp count.
  const int64_t regsAssumed = int64_t{regsPerWarp} * roundUp(warpsPerBlock, d.subPartitions);
  if (k.regsPerThread > d.maxRegsPerThread || regsAssumed > d.regsPerBlock || o.regsAllocatedPerBlock > d.regsPerBlock) {
    o.whyNone = std::to_string(k.regsPerThread) + " registers per thread x " + std::to_string(k.threadsPerBlock) +
                " threads exceed the register limit per block";
    return o;
  }
  o.limitByRegisters =
      regsPerWarp > 0 ? (d.regsPerSM / d.subPartitions / regsPerWarp) * d.subPartitions / warpsPerBlock : INT_MAX;

  // Shared memory: the driver's reservation counts against each block.
  const int64_t used = k.sharedBytesPerBlock + d.sharedReservedPerBlock;
  o.sharedAllocatedPerBlock = roundUp(used, d.sharedAllocUnit);
  const int64_t perBlockLimit =
      (used > d.sharedPerBlock ? d.sharedPerBlockOptin : d.sharedPerBlock) + d.sharedReservedPerBlock;
  if (o.sharedAllocatedPerBlock > perBlockLimit) {
    o.whyNone = std::to_string(k.sharedBytesPerBlock) + " bytes of shared memory per block exceed the limit of " +
                std::to_string(perBlockLimit - d.sharedReservedPerBlock);
    return o;
  }
  int64_t perSM = carveoutFor(d, d.sharedPerSM);
  if (perSM < o.sharedAllocatedPerBlock) perSM = carveoutFor(d, o.sharedAllocatedPerBlock);
  if (perSM < 0) {
    o.whyNone = "no shared-memory configuration of the SM holds one block";
    return o;
  }
  o.limitBySharedMemory = o.sharedAllocatedPerBlock > 0 ? static_cast<int>(perSM / o.sharedAllocatedPerBlock) : INT_MAX;

  o.blocksPerSM = std::min({o.limitByWarps, o.limitByRegisters, o.limitBySharedMemory, o.limitByBlocks});
  // Report the first binding limit in a fixed order (warps, registers, shared, blocks).
  if (o.blocksPerSM == o.limitByWarps) o.limitedBy = OccupancyLimit::Warps;
  else if (o.blocksPerSM == o.limitByRegisters) o.limitedBy = OccupancyLimit::Registers;
  else if (o.blocksPerSM == o.limitBySharedMemory) o.limitedBy = OccupancyLimit::SharedMemory;
  else o.limitedBy = OccupancyLimit::Blocks;
  if (o.blocksPerSM == 0) o.whyNone = "one block needs more " + limitName(o.limitedBy) + " than an SM has";
  o.activeWarpsPerSM = o.blocksPerSM * warpsPerBlock;
  o.occupancy = static_cast<double>(o.activeWarpsPerSM) / d.maxWarpsPerSM();
  return o;
}

}  // namespace rammer::device
