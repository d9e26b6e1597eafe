// The range profiler's host side for real (metric configuration needs no
// GPU), the attribution of ranges to rPrograms, and its refusal without a GPU.
#include <gtest/gtest.h>

#include <algorithm>

#include "profiler/range_profiler.h"
#include "tests/profiler/profiler_test_support.h"

namespace rammer::profiler {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(RangeProfiler, CollectsTheThreeMetricsOfTheIssue) {
  EXPECT_EQ(programMetricNames(),
            (std::vector<std::string>{"smsp__cycles_active.avg.pct_of_peak_sustained_elapsed",
                                      "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__cycles_active.avg"}));
}

// CUPTI's host library aborts AddressSanitizer builds (RTLD_DEEPBIND).
#define SKIP_WITHOUT_COUNTER_HOST()                                                      \
  if (!counterHostUsable()) GTEST_SKIP() << "sanitizer build: CUPTI's host side is off"; \
  auto cupti = testing::loadCupti();                                                     \
  if (!cupti) GTEST_SKIP() << "no libcupti"

TEST(RangeProfiler, HostSideConfiguresTheMetricsForHopperAndAmpere) {
  SKIP_WITHOUT_COUNTER_HOST();
  auto chips = supportedChips(*cupti);
  ASSERT_TRUE(chips.ok()) << chips.errorText();
  for (const char* chip : {"GH100", "GA100"}) {
    ASSERT_NE(std::find(chips->begin(), chips->end(), chip), chips->end()) << chip;
    auto config = buildMetricConfig(*cupti, chip, programMetricNames());
    ASSERT_TRUE(config.ok()) << config.errorText();
    EXPECT_EQ(config->chip, chip);
    EXPECT_EQ(config->metrics, programMetricNames());
    EXPECT_FALSE(config->image.empty());
    EXPECT_GE(config->passes, 1u);
  }
}

TEST(RangeProfiler, HostSideNamesARefusedMetricOrChip) {
  SKIP_WITHOUT_COUNTER_HOST();
  auto badMetric = buildMetricConfig(*cupti, "GH100", {"sm__cycles_active.avg", "sm__no_such_counter.avg"});
  ASSERT_FALSE(badMetric.ok());
  EXPECT_TRUE(badMetric.errors()[0].message.starts_with("metric 'sm__no_such_counter.avg' is not available on GH100"))
      << badMetric.errorText();
  auto badChip = buildMetricConfig(*cupti, "GX999", programMetricNames());
  ASSERT_FALSE(badChip.ok());
  EXPECT_TRUE(contains(badChip.errorText(), "CUPTI cannot configure counters for chip 'GX999'")) << badChip.errorText();
  auto none = buildMetricConfig(*cupti, "GH100", {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.errors()[0].message, "no metrics to collect");
}

codegen::KernelLaunch launch(int32_t program, const std::string& kernel) {
  codegen::KernelLaunch l;
  l.program = program;
  l.kernel = kernel;
  return l;
}

TEST(RangeProfiler, RangesAreLaunchesInOrderAveragedOverRuns) {
  const std::vector<codegen::KernelLaunch> launches = {launch(0, "rammer_p0"), launch(1, "rammer_p1")};
  // Run 0 (dropped), runs 1 and 2.
  const std::vector<RangeValues> ranges = {{1, 1, 1}, {2, 2, 2}, {50, 20, 1000}, {80, 40, 3000},
                                           {60, 30, 2000}, {90, 50, 5000}};
  auto p = attributeRanges(ranges, launches, 3, 1);
  ASSERT_TRUE(p.ok()) << p.errorText();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0].program, 0);
  EXPECT_EQ((*p)[0].kernel, "rammer_p0");
  EXPECT_EQ((*p)[0].runs, 2);
  EXPECT_EQ((*p)[0].values, (std::vector<double>{55, 25, 1500}));
  EXPECT_EQ((*p)[1].values, (std::vector<double>{85, 45, 4000}));

  auto uneven = attributeRanges({{1, 1, 1}, {2, 2, 2}, {3, 3, 3}}, launches, 3, 0);
  ASSERT_FALSE(uneven.ok());
  EXPECT_EQ(uneven.errors()[0].message,
            "CUPTI returned 3 ranges for 2 launches per run; the counters cannot be attributed to rPrograms");
  auto short_ = attributeRanges({{1, 1, 1}, {2, 2}}, launches, 3, 0);
  ASSERT_FALSE(short_.ok());
  EXPECT_EQ(short_.errors()[0].message, "range 1 has 2 values, 3 metrics were asked for");
  EXPECT_FALSE(attributeRanges({}, launches, 3, 0).ok());
  EXPECT_FALSE(attributeRanges({{1}}, {}, 1, 0).ok());
}

TEST(RangeProfiler, WithoutAGpuEnableSaysCuptiCannotAttach) {
  if (testing::cudaDriverInstalled()) GTEST_SKIP() << "a CUDA driver is installed here";
  auto cupti = testing::loadCupti();
  if (!cupti) GTEST_SKIP() << "no libcupti";
  auto rp = RangeProfiler::enable(cupti, nullptr, 0, programMetricNames(), 4);
  ASSERT_FALSE(rp.ok());
  EXPECT_EQ(rp.errors()[0].message,
            "CUPTI cannot attach to a GPU (cuptiProfilerInitialize: CUPTI_ERROR_UNKNOWN): no usable CUDA driver or GPU "
            "in this process");
}

}  // namespace
}  // namespace rammer::profiler
