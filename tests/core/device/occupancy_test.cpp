// The occupancy calculator against the CUDA toolkit's cuda_occupancy.h over a
// grid of block sizes, register counts and shared-memory sizes.
#include <gtest/gtest.h>

#include "core/device/occupancy.h"

#ifdef RAMMER_HAVE_CUDA_OCCUPANCY
#include <cuda_occupancy.h>
#endif

using namespace rammer::device;

namespace {
DeviceSpec preset(const std::string& id) {
  auto d = presetDevice(id);
  EXPECT_TRUE(d.ok()) << d.errorText();
  return d.ok() ? d.value() : DeviceSpec{};
}
}  // namespace

TEST(Occupancy, HandWorkedH100Cases) {
  DeviceSpec h100 = preset("h100");
  // 256 threads, 32 regs, no shared: warps limit 64/8 = 8 blocks.
  Occupancy a = computeOccupancy(h100, {256, 32, 0});
  EXPECT_EQ(a.blocksPerSM, 8);
  EXPECT_EQ(a.limitedBy, OccupancyLimit::Warps);
  EXPECT_DOUBLE_EQ(a.occupancy, 1.0);
  // 128 threads, 128 regs: 4096 regs/warp, 16384/4096 = 4 warps per sub-partition
  // -> 16 warps per SM -> 4 blocks of 4 warps.
  Occupancy b = computeOccupancy(h100, {128, 128, 0});
  EXPECT_EQ(b.blocksPerSM, 4);
  EXPECT_EQ(b.limitedBy, OccupancyLimit::Registers);
  // 64 threads with 100 KB shared: (100K + 1K reserved) -> 2 blocks in 228 KB.
  Occupancy c = computeOccupancy(h100, {64, 32, 100 * 1024});
  EXPECT_EQ(c.blocksPerSM, 2);
  EXPECT_EQ(c.limitedBy, OccupancyLimit::SharedMemory);
  // 32 threads, tiny: the 32 blocks-per-SM cap binds.
  EXPECT_EQ(computeOccupancy(h100, {32, 16, 0}).limitedBy, OccupancyLimit::Blocks);
}

TEST(Occupancy, RefusesWhatCannotRun) {
  DeviceSpec h100 = preset("h100");
  Occupancy tooMany = computeOccupancy(h100, {2048, 32, 0});
  EXPECT_EQ(tooMany.blocksPerSM, 0);
  EXPECT_NE(tooMany.whyNone.find("2048 threads"), std::string::npos);
  Occupancy tooMuchShared = computeOccupancy(h100, {128, 32, 300 * 1024});
  EXPECT_EQ(tooMuchShared.blocksPerSM, 0);
  EXPECT_NE(tooMuchShared.whyNone.find("shared memory"), std::string::npos);
  Occupancy tooManyRegs = computeOccupancy(h100, {1024, 255, 0});
  EXPECT_EQ(tooManyRegs.blocksPerSM, 0);
  EXPECT_NE(tooManyRegs.whyNone.find("register"), std::string::npos);
}

#ifdef RAMMER_HAVE_CUDA_OCCUPANCY
TEST(Occupancy, MatchesCudaOccupancyCalculator) {
  int compared = 0;
  for (const char* id : {"h100", "h200", "a100", "v100"}) {
    DeviceSpec d = preset(id);
    cudaOccDeviceProp prop;
    prop.computeMajor = d.computeMajor;
    prop.computeMinor = d.computeMinor;
    prop.maxThreadsPerBlock = d.maxThreadsPerBlock;
    prop.maxThreadsPerMultiprocessor = d.maxThreadsPerSM;
    prop.regsPerBlock = d.regsPerBlock;
    prop.regsPerMultiprocessor = d.regsPerSM;
    prop.warpSize = d.warpSize;
    prop.sharedMemPerBlock = static_cast<size_t>(d.sharedPerBlock);
    prop.sharedMemPerMultiprocessor = static_cast<size_t>(d.sharedPerSM);
    prop.numSms = d.sms;
    prop.sharedMemPerBlockOptin = static_cast<size_t>(d.sharedPerBlockOptin);
    prop.reservedSharedMemPerBlock = static_cast<size_t>(d.sharedReservedPerBlock);
    cudaOccDeviceState state;

    for (int threads : {1, 32, 33, 64, 96, 100, 128, 192, 256, 320, 384, 512, 640, 768, 1024}) {
      for (int regs : {0, 16, 24, 32, 40, 48, 64, 72, 96, 128, 168, 200, 255}) {
        for (int64_t shared : {0, 1, 1000, 4096, 12000, 32768, 48 * 1024, 49152 + 512, 64 * 1024, 96 * 1024,
                               100 * 1024, 160 * 1024, 200 * 1024, 227 * 1024, 240 * 1024}) {
          cudaOccFuncAttributes attr;
          attr.maxThreadsPerBlock = 1024;
          attr.numRegs = regs;
          attr.sharedSizeBytes = 0;
          // A launch that opts in to exactly the dynamic shared memory it needs.
          attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
          attr.maxDynamicSharedSizeBytes = static_cast<size_t>(shared);
          attr.numBlockBarriers = 1;
          cudaOccResult res;
          cudaOccError err =
              cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state, threads, static_cast<size_t>(shared));
          const int expected = err == CUDA_OCC_SUCCESS ? res.activeBlocksPerMultiprocessor : 0;
          const Occupancy ours = computeOccupancy(d, {threads, regs, shared});
          ASSERT_EQ(ours.blocksPerSM, expected)
              << id << " threads=" << threads << " regs=" << regs << " shared=" << shared << " (ours limited by "
              << limitName(ours.limitedBy) << ")";
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 4 * 15 * 13 * 15);
}
#endif
