// What `rammer profile` prints, from a hand-made profile result: the
// per-rProgram table with estimates marked, the rKernels against the
// analytic model, and the plan predicted with and without the database.
#include <gtest/gtest.h>

#include "app/cli/profile_report.h"
#include "core/sim/analytic_cost_model.h"
#include "tests/core/sim/sim_fixtures.h"

namespace rammer::cli {
namespace {

using testing::exec;

schedule::Plan twoOpPlan() {
  // Ops a and b, two rTasks each on two vEUs, one program each; the same work.
  return testing::handPlan(2, 2, {{{{exec(0, 0)}, {exec(0, 1)}}, 1}, {{{exec(1, 0)}, {exec(1, 1)}}, 1}});
}

sim::ProfileEntry entry(const kernels::RKernel& k, std::vector<double> us) {
  sim::ProfileEntry e;
  e.key = sim::profileKey(k);
  e.kernelName = k.name;
  e.opType = "Relu";
  e.veusPerSM = 1;
  e.numRTasks = k.numRTasks;
  e.taskTime = sim::summarizeTimes(std::move(us));
  return e;
}

profiler::ProfileResult result(const schedule::Plan& plan) {
  profiler::ProfileResult r;
  r.deviceName = "Test GPU";
  r.arch = "sm_90";
  r.sms = 2;
  r.capability.kernelTimestamps = true;
  r.capability.message = "Test GPU; kernel timestamps: CUPTI; hardware counters: restricted";
  r.timestampsNote = "CUPTI activity records, 3 timed runs";
  r.countersNote = "unavailable: counters restricted";
  r.latencyUs = {12, 10, 11};
  profiler::ProgramProfile p0;
  p0.program = 0;
  p0.kernel = "rammer_p0";
  p0.gridBlocks = 2;
  p0.blockThreads = 256;
  p0.kernelTime = sim::summarizeTimes({5, 6, 7});
  p0.rtaskSpanUs = 5.5;
  p0.smEfficiencyPct = {85.3, true, "CUPTI range profiler"};
  p0.warpActivityPct = {12.5, false, "estimate: resident warps (occupancy)"};
  p0.smCyclesActive = {9000, false, "estimate: CUPTI kernel time x clock"};
  profiler::ProgramProfile p1 = p0;
  p1.program = 1;
  p1.kernel = "rammer_p1";
  p1.kernelTime = {};
  r.programs = {p0, p1};
  r.db = sim::ProfileDB("h100", "Test GPU");
  r.db.add(entry(plan.ops[0].kernel, {4, 6}));  // 10 us of rTask time
  r.db.add(entry(plan.ops[1].kernel, {1, 1}));  // 2 us
  return r;
}

TEST(ProfileReport, PredictsWithTheDatabaseWhereItHasMeasurements) {
  const schedule::Plan plan = twoOpPlan();
  auto none = predictWithDatabase(plan, sim::ProfileDB("h100"));
  ASSERT_TRUE(none.ok()) << none.errorText();
  EXPECT_DOUBLE_EQ(none->profiledUs, none->analyticUs);

  sim::ProfileDB db("h100");
  db.add(entry(plan.ops[0].kernel, {5}));
  auto p = predictWithDatabase(plan, db);
  ASSERT_TRUE(p.ok()) << p.errorText();
  // Two launches, then one rTask time per program (both vEUs run in parallel);
  // a's analytic time t becomes the measured 5 us.
  const double t = (p->analyticUs - 2 * plan.device.launchOverheadUs) / 2;
  EXPECT_GT(t, 0);
  EXPECT_NEAR(p->profiledUs, p->analyticUs - t + 5, 1e-9);

  sim::ProfileDB other("a100");
  other.add(entry(plan.ops[0].kernel, {5}));
  EXPECT_DOUBLE_EQ(predictWithDatabase(plan, other)->profiledUs, p->analyticUs);
}

TEST(ProfileReport, JsonCarriesMeasurementsEstimatesAndTheirSources) {
  const schedule::Plan plan = twoOpPlan();
  const profiler::ProfileResult r = result(plan);
  sim::ProfileDB merged = r.db;
  merged.add(entry(testing::fakeKernel("older_k", 1, 1), {1}));
  const ProfileReport report{"m.onnx", "wavefront", "db.json", plan, r, merged, {100, 90}};
  const Json j = profileReportJson(report);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "gpu", "arch", "device", "policy", "programs", "rtasks",
                                            "capability", "kernel_times", "counters", "latency_us", "launches",
                                            "rkernels", "db", "predicted_us"}));
  EXPECT_EQ(j["gpu"], "Test GPU");
  EXPECT_EQ(j["device"], "h100");
  EXPECT_EQ(j["rtasks"], 4);
  EXPECT_EQ(j["capability"]["counters"], false);
  EXPECT_EQ(j["latency_us"]["median"], 11.0);
  EXPECT_EQ(j["latency_us"]["samples"], 3);
  ASSERT_EQ(j["launches"].size(), 2u);
  EXPECT_EQ(j["launches"][0]["kernel_us"]["median"], 6.0);
  EXPECT_TRUE(j["launches"][1]["kernel_us"].is_null());
  EXPECT_EQ(j["launches"][0]["sm_efficiency_pct"]["value"], 85.3);
  EXPECT_EQ(j["launches"][0]["sm_efficiency_pct"]["measured"], true);
  EXPECT_EQ(j["launches"][0]["warp_activity_pct"]["source"], "estimate: resident warps (occupancy)");
  ASSERT_EQ(j["rkernels"].size(), 2u);
  EXPECT_EQ(j["rkernels"][0]["kernel"], "a_k") << "most rTask time first";
  EXPECT_EQ(j["rkernels"][0]["median_us"], 5.0);
  const double analytic =
      sim::AnalyticCostModel().taskTimeUs(plan.ops[0].kernel, plan.device, sim::TaskContext{1, 0, 0, 0});
  EXPECT_DOUBLE_EQ(j["rkernels"][0]["analytic_us"].get<double>(), analytic);
  EXPECT_EQ(j["db"]["entries"], 3);
  EXPECT_EQ(j["db"]["measured_this_run"], 2);
  EXPECT_EQ(j["predicted_us"]["profiled"], 90.0);
}

TEST(ProfileReport, TextMarksEstimatesAndLimitsRows) {
  const schedule::Plan plan = twoOpPlan();
  const profiler::ProfileResult r = result(plan);
  const ProfileReport report{"m.onnx", "wavefront", "db.json", plan, r, r.db, {100, 90}};
  const std::string text = profileReportText(report, 1);
  auto has = [&text](const std::string& s) { return text.find(s) != std::string::npos; };
  EXPECT_TRUE(has("device    Test GPU (sm_90), plan for h100, policy wavefront: 2 programs, 4 rTasks\n")) << text;
  EXPECT_TRUE(has("kernels   CUPTI activity records, 3 timed runs\n")) << text;
  EXPECT_TRUE(has("counters  unavailable: counters restricted\n")) << text;
  EXPECT_TRUE(has("latency   median 11.0 us over 3 runs (min 10.0, max 12.0)\n")) << text;
  EXPECT_TRUE(has(" 6.00 ")) << text;
  EXPECT_TRUE(has(" 85.3 ")) << "a counter has no mark\n" << text;
  EXPECT_TRUE(has(" 12.5~ ")) << "an estimate is marked\n" << text;
  EXPECT_TRUE(has(" 9000~\n")) << text;
  EXPECT_TRUE(has("rkernels  2 measured: per-rTask median and the analytic model's time (the 1 with the most rTask "
                  "time)\n"))
      << text;
  EXPECT_TRUE(has("  a_k ")) << text;
  EXPECT_FALSE(has("  b_k ")) << text;
  EXPECT_TRUE(has("database  db.json: 2 entries for h100 (2 measured in this run)\n")) << text;
  EXPECT_TRUE(has("predicted 100.0 us with the analytic model, 90.0 us with the profile database (measured median "
                  "11.0 us)\n"))
      << text;
}

}  // namespace
}  // namespace rammer::cli
