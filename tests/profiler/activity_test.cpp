// Kernel records: decoding CUPTI's activity structs (synthetic ones, through
// the real libcupti's record iterator) and matching them to launches.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "profiler/activity_decode.h"
#include "profiler/activity_tracer.h"
#include "tests/profiler/profiler_test_support.h"

namespace rammer::profiler {
namespace {

KernelRecord rec(const std::string& name, uint64_t start, uint64_t end, uint32_t correlation = 0) {
  KernelRecord r;
  r.name = name;
  r.startNs = start;
  r.endNs = end;
  r.correlationId = correlation;
  return r;
}

codegen::KernelLaunch launch(int32_t program, const std::string& kernel) {
  codegen::KernelLaunch l;
  l.program = program;
  l.kernel = kernel;
  return l;
}

TEST(KernelRecords, MatchLaunchesRunByRunAndDropTheWarmUp) {
  // A sequential plan: programs 1 and 2 run the same ordinary kernel.
  const std::vector<codegen::KernelLaunch> launches = {launch(0, "rammer_p0"), launch(1, "rammer_base_f1_t256"),
                                                       launch(2, "rammer_base_f1_t256")};
  // Three runs (the first a warm-up), 1 us apart, given out of order; run r
  // launch i lasts (10 r + i + 1) us.
  std::vector<KernelRecord> records;
  uint64_t t = 0;
  for (int run = 0; run < 3; ++run)
    for (size_t i = 0; i < launches.size(); ++i) {
      const uint64_t us = static_cast<uint64_t>(10 * run + static_cast<int>(i) + 1);
      records.push_back(rec(launches[i].kernel, t, t + us * 1000));
      t += us * 1000 + 1000;
    }
  std::swap(records[0], records[7]);
  std::swap(records[2], records[4]);
  records.push_back(rec("someone_elses_kernel", 5, 10));
  records.push_back(rec("rammer_p0", 7, 0));  // never finished

  const KernelAttribution a = attributeKernelRecords(records, launches, /*skipRuns=*/1);
  ASSERT_EQ(a.launches.size(), 3u);
  EXPECT_EQ(a.unmatched, 1u);
  EXPECT_EQ(a.incomplete, 1u);
  EXPECT_EQ(a.launches[0].program, 0);
  EXPECT_EQ(a.launches[0].us, (std::vector<double>{11, 21}));
  EXPECT_EQ(a.launches[1].us, (std::vector<double>{12, 22}));
  EXPECT_EQ(a.launches[2].us, (std::vector<double>{13, 23}));

  const KernelAttribution all = attributeKernelRecords(records, launches, 0);
  EXPECT_EQ(all.launches[2].us, (std::vector<double>{3, 13, 23}));
}

TEST(KernelRecords, EqualStartsKeepLaunchOrderByCorrelationId) {
  const std::vector<codegen::KernelLaunch> launches = {launch(0, "k"), launch(1, "k")};
  const KernelAttribution a = attributeKernelRecords({rec("k", 100, 300, 9), rec("k", 100, 200, 8)}, launches, 0);
  EXPECT_EQ(a.launches[0].us, (std::vector<double>{0.1}));
  EXPECT_EQ(a.launches[1].us, (std::vector<double>{0.2}));
}

#if RAMMER_HAVE_CUPTI_HEADERS
CUpti_ActivityKernel10 kernelActivity(const char* name, uint64_t start, uint64_t end) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.start = start;
  k.end = end;
  k.correlationId = 42;
  k.deviceId = 1;
  k.streamId = 7;
  k.gridX = 264, k.gridY = 1, k.gridZ = 1;
  k.blockX = 256, k.blockY = 1, k.blockZ = 1;
  k.registersPerThread = 40;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 16384;
  return k;
}

TEST(KernelRecords, DecodeACuptiKernelActivity) {
  const CUpti_ActivityKernel10 k = kernelActivity("rammer_p3", 1'000'000, 1'012'500);
  auto r = decodeKernelActivity(reinterpret_cast<const CUpti_Activity&>(k));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->name, "rammer_p3");
  EXPECT_EQ(r->startNs, 1'000'000u);
  EXPECT_DOUBLE_EQ(r->durationUs(), 12.5);
  EXPECT_EQ(r->correlationId, 42u);
  EXPECT_EQ(r->streamId, 7u);
  EXPECT_EQ(r->gridX, 264);
  EXPECT_EQ(r->blockX, 256);
  EXPECT_EQ(r->registers, 40);
  EXPECT_EQ(r->staticSharedBytes, 1024);
  EXPECT_EQ(r->dynamicSharedBytes, 16384);

  CUpti_ActivityKernel10 other = k;
  other.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  EXPECT_FALSE(decodeKernelActivity(reinterpret_cast<const CUpti_Activity&>(other)).has_value());
  CUpti_ActivityKernel10 legacy = k;
  legacy.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  EXPECT_TRUE(decodeKernelActivity(reinterpret_cast<const CUpti_Activity&>(legacy)).has_value());
}

TEST(KernelRecords, DecodeABufferWithLibcuptisIterator) {
  auto cupti = testing::loadCupti();
  if (!cupti) GTEST_SKIP() << "no libcupti";
  // Records as CUPTI lays them out: back to back, 8-byte aligned.
  const CUpti_ActivityKernel10 records[] = {kernelActivity("rammer_p0", 100, 2100),
                                            kernelActivity("rammer_p1", 3000, 3500)};
  alignas(8) uint8_t buffer[sizeof records];
  std::memcpy(buffer, records, sizeof records);
  const auto decoded = decodeActivityBuffer(*cupti, buffer, sizeof buffer);
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_EQ(decoded[0].name, "rammer_p0");
  EXPECT_DOUBLE_EQ(decoded[0].durationUs(), 2.0);
  EXPECT_EQ(decoded[1].name, "rammer_p1");
  EXPECT_DOUBLE_EQ(decoded[1].durationUs(), 0.5);
  EXPECT_TRUE(decodeActivityBuffer(*cupti, buffer, 0).empty());
}

TEST(ActivityTracer, WithoutAGpuStartSaysCuptiCannotAttach) {
  if (testing::cudaDriverInstalled()) GTEST_SKIP() << "a CUDA driver is installed here";
  auto cupti = testing::loadCupti();
  if (!cupti) GTEST_SKIP() << "no libcupti";
  auto t = ActivityTracer::start(cupti);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.errors()[0].message,
            "CUPTI cannot attach to a GPU (cuptiActivityEnable(CONCURRENT_KERNEL): CUPTI_ERROR_UNKNOWN): no usable "
            "CUDA driver or GPU in this process");
  // The failed start left no tracer behind: a second one gets the same answer.
  auto again = ActivityTracer::start(cupti);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.errorText(), t.errorText());
  EXPECT_FALSE(ActivityTracer::start(nullptr).ok());
}
#endif

}  // namespace
}  // namespace rammer::profiler
