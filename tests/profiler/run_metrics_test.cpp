// The per-launch metrics and their totals as `rammer run --metrics` and the
// studio show them, worked out by hand.
#include <gtest/gtest.h>

#include "profiler/run_metrics.h"

namespace rammer::profiler {
namespace {

ProgramProfile launch(int32_t program, double kernelUs, double spanUs, MetricValue eff, MetricValue warps,
                      MetricValue cycles) {
  ProgramProfile p;
  p.program = program;
  p.kernel = "rammer_program_" + std::to_string(program);
  if (kernelUs > 0) {
    p.kernelTime.samples = 5;
    p.kernelTime.medianUs = kernelUs;
  }
  p.rtaskSpanUs = spanUs;
  p.smEfficiencyPct = std::move(eff);
  p.warpActivityPct = std::move(warps);
  p.smCyclesActive = std::move(cycles);
  return p;
}

TEST(RunMetrics, KernelTimeWeightedTotalsWithCommonSources) {
  const std::string cupti = "CUPTI range profiler";
  ProfileResult r;
  r.timestampsNote = "CUPTI activity records, 5 timed runs";
  r.countersNote = "CUPTI range profiler on GH100";
  // Weights 30 us and 10 us (CUPTI kernel times; the spans are ignored).
  r.programs = {launch(0, 30, 99, {80, true, cupti}, {50, true, cupti}, {1000, true, cupti}),
                launch(1, 10, 1, {40, true, cupti}, {10, true, cupti}, {500, true, cupti})};
  const RunMetrics m = summarizeProfile(r);
  ASSERT_TRUE(m.available());
  EXPECT_TRUE(m.allMeasured());
  EXPECT_EQ(m.timestampsNote, r.timestampsNote);
  EXPECT_EQ(m.countersNote, r.countersNote);
  ASSERT_EQ(m.programs.size(), 2u);
  EXPECT_EQ(m.programs[1].kernel, "rammer_program_1");
  EXPECT_DOUBLE_EQ(m.programs[0].weightUs, 30);
  EXPECT_DOUBLE_EQ(m.totalWeightUs, 40);
  EXPECT_DOUBLE_EQ(m.smEfficiencyPct.value, (30 * 80 + 10 * 40) / 40.0);  // 70
  EXPECT_DOUBLE_EQ(m.warpActivityPct.value, (30 * 50 + 10 * 10) / 40.0);  // 40
  EXPECT_DOUBLE_EQ(m.smCyclesActive.value, 1500);                         // summed
  EXPECT_EQ(m.smEfficiencyPct.source, cupti);
}

TEST(RunMetrics, SpanWeightsAndMixedSourcesAreEstimates) {
  const std::string est = "estimate: SM time in rTasks (rTask timestamps)";
  ProfileResult r;
  // No CUPTI kernel times: the rTask spans (3 us, 1 us) weigh the launches.
  r.programs = {launch(0, 0, 3, {20, false, est}, {25, false, "w"}, {9, false, "a"}),
                launch(1, 0, 1, {60, true, "CUPTI range profiler"}, {25, false, "w"}, {1, false, "b"})};
  const RunMetrics m = summarizeProfile(r);
  EXPECT_FALSE(m.allMeasured());
  EXPECT_DOUBLE_EQ(m.totalWeightUs, 4);
  EXPECT_DOUBLE_EQ(m.smEfficiencyPct.value, (3 * 20 + 1 * 60) / 4.0);  // 30
  EXPECT_FALSE(m.smEfficiencyPct.measured);
  EXPECT_EQ(m.smEfficiencyPct.source, "mixed: " + est + "; CUPTI range profiler");
  EXPECT_EQ(m.warpActivityPct.source, "w");
  EXPECT_DOUBLE_EQ(m.smCyclesActive.value, 10);
  EXPECT_EQ(m.smCyclesActive.source, "mixed: a; b");
}

TEST(RunMetrics, UnavailableNamesTheReasonOnEveryValue) {
  schedule::Plan plan;
  plan.programs.resize(3);
  const RunMetrics m = unavailableRunMetrics(plan, "no rTask recorded a time");
  EXPECT_FALSE(m.available());
  EXPECT_FALSE(m.allMeasured());
  ASSERT_EQ(m.programs.size(), 3u);
  EXPECT_EQ(m.programs[2].program, 2);
  for (const LaunchMetrics& l : m.programs) {
    EXPECT_EQ(l.smEfficiencyPct.source, "unavailable: no rTask recorded a time");
    EXPECT_EQ(l.smCyclesActive.source, "unavailable: no rTask recorded a time");
  }
  EXPECT_EQ(m.warpActivityPct.source, "unavailable: no rTask recorded a time");
  EXPECT_DOUBLE_EQ(m.totalWeightUs, 0);
}

TEST(RunMetrics, NoLaunchesGiveNoTotals) {
  const RunMetrics m = summarizeProfile(ProfileResult{});
  EXPECT_TRUE(m.programs.empty());
  EXPECT_DOUBLE_EQ(m.totalWeightUs, 0);
  EXPECT_FALSE(m.smEfficiencyPct.measured);
  EXPECT_TRUE(m.smEfficiencyPct.source.empty());
}

}  // namespace
}  // namespace rammer::profiler
