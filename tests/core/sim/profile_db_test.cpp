// The profile database (JSON round trip, merge, malformed files) and the
// profiled cost model (measured where the database has the rKernel,
// analytic elsewhere).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/sim/analytic_cost_model.h"
#include "core/sim/profile_db.h"
#include "core/sim/profiled_cost_model.h"
#include "core/sim/simulator.h"
#include "tests/core/sim/sim_fixtures.h"

namespace rammer::sim {
namespace {

using testing::fakeKernel;

TimeStats stats(int64_t n, double median, double mean, double min, double max) {
  return TimeStats{n, median, mean, min, max};
}

ProfileEntry entry(const kernels::RKernel& k, int veus, TimeStats task, TimeStats kernel = {}) {
  ProfileEntry e;
  e.key = profileKey(k);
  e.kernelName = k.name;
  e.opType = "Gemm";
  e.veusPerSM = veus;
  e.numRTasks = k.numRTasks;
  e.taskTime = task;
  e.kernelTime = kernel;
  return e;
}

void expectStatsEq(const TimeStats& a, const TimeStats& b) {
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_DOUBLE_EQ(a.medianUs, b.medianUs);
  EXPECT_DOUBLE_EQ(a.meanUs, b.meanUs);
  EXPECT_DOUBLE_EQ(a.minUs, b.minUs);
  EXPECT_DOUBLE_EQ(a.maxUs, b.maxUs);
}

TEST(ProfileDB, SummarizesAndMergesTimes) {
  expectStatsEq(summarizeTimes({3, 1, 2, 10}), stats(4, 2.5, 4, 1, 10));
  expectStatsEq(summarizeTimes({5, 1, 2}), stats(3, 2, 8.0 / 3, 1, 5));
  EXPECT_EQ(summarizeTimes({}).samples, 0);
  // 2 samples with median 1 and 6 with median 3: weights 1/4 and 3/4.
  expectStatsEq(mergeTimes(stats(2, 1, 1, 0.5, 1.5), stats(6, 3, 4, 2, 9)), stats(8, 2.5, 3.25, 0.5, 9));
  expectStatsEq(mergeTimes({}, stats(6, 3, 4, 2, 9)), stats(6, 3, 4, 2, 9));
}

TEST(ProfileDB, KeyNamesTheKernelItsShapeAndWork) {
  kernels::RKernel k = fakeKernel("gemm_64x64", 8, 3.5e7, 256, 8192, 1.25e6);
  k.params = {{"tile_m", 64}, {"M", 128}};
  EXPECT_EQ(profileKey(k), "gemm_64x64{M=128,tile_m=64} tasks=8 block=256x1x1 smem=8192 flops=3.5e+07 bytes=1.25e+06");
  kernels::RKernel other = k;
  other.params["M"] = 256;
  EXPECT_NE(profileKey(other), profileKey(k));
}

TEST(ProfileDB, JsonRoundTripKeepsEveryField) {
  ProfileDB db("h100", "NVIDIA H100 80GB HBM3");
  db.add(entry(fakeKernel("a_k", 4, 1e6), 2, stats(8, 1.5, 1.6, 1.25, 2.5)));
  db.add(entry(fakeKernel("b_k", 1, 2e6), 8, stats(1, 4, 4, 4, 4), stats(10, 6.5, 6.75, 6, 8)));
  const std::string json = profileDBToJson(db);
  auto back = parseProfileDB(json, "db.json");
  ASSERT_TRUE(back.ok()) << back.errorText();
  EXPECT_EQ(back->device(), "h100");
  EXPECT_EQ(back->gpu(), "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(back->size(), 2u);
  const auto want = db.entries(), got = back->entries();
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].key, want[i].key);
    EXPECT_EQ(got[i].kernelName, want[i].kernelName);
    EXPECT_EQ(got[i].opType, "Gemm");
    EXPECT_EQ(got[i].veusPerSM, want[i].veusPerSM);
    EXPECT_EQ(got[i].numRTasks, want[i].numRTasks);
    EXPECT_EQ(got[i].runs, 1);
    expectStatsEq(got[i].taskTime, want[i].taskTime);
    expectStatsEq(got[i].kernelTime, want[i].kernelTime);
  }
  EXPECT_EQ(json.find("\"kernel_us\""), json.rfind("\"kernel_us\"")) << "only b_k has a kernel time";
  EXPECT_EQ(profileDBToJson(*back), json);
}

TEST(ProfileDB, SavesAndLoadsAFile) {
  const auto dir = std::filesystem::temp_directory_path() / "rammer_profile_db_test";
  std::filesystem::create_directories(dir);
  const auto file = dir / "h100.json";
  ProfileDB db("h100");
  db.add(entry(fakeKernel("a_k", 4, 1e6), 2, stats(3, 2, 2, 1, 3)));
  ASSERT_TRUE(saveProfileDB(db, file).empty());
  EXPECT_FALSE(std::filesystem::exists(dir / "h100.json.tmp"));
  auto back = loadProfileDB(file);
  ASSERT_TRUE(back.ok()) << back.errorText();
  EXPECT_EQ(back->size(), 1u);
  auto missing = loadProfileDB(dir / "absent.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.errorText().find("absent.json: cannot open the profile database"), std::string::npos)
      << missing.errorText();
  auto unwritable = saveProfileDB(db, dir / "no_such_folder" / "h100.json");
  ASSERT_EQ(unwritable.size(), 1u);
  EXPECT_NE(ir::formatDiagnostic(unwritable[0]).find("h100.json: cannot write the profile database (through "
                                                     "h100.json.tmp)"),
            std::string::npos)
      << ir::formatDiagnostic(unwritable[0]);
  std::filesystem::remove_all(dir);
}

TEST(ProfileDB, MergeCombinesTheSameRKernelAndOccupancy) {
  const auto k = fakeKernel("a_k", 4, 1e6);
  ProfileDB into("h100");
  into.add(entry(k, 2, stats(2, 1, 1, 0.5, 1.5)));
  ProfileDB from("h100", "GPU");
  from.add(entry(k, 2, stats(6, 3, 4, 2, 9)));
  from.add(entry(k, 4, stats(1, 7, 7, 7, 7)));
  ASSERT_TRUE(mergeProfileDB(into, from).empty());
  ASSERT_EQ(into.size(), 2u);
  const ProfileEntry* two = into.find(profileKey(k), 2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->runs, 2);
  expectStatsEq(two->taskTime, stats(8, 2.5, 3.25, 0.5, 9));
  EXPECT_EQ(into.gpu(), "GPU");

  ProfileDB a100("a100");
  a100.add(entry(fakeKernel("z_k", 1, 1), 1, stats(1, 1, 1, 1, 1)));
  auto errors = mergeProfileDB(into, a100);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("device 'a100' into a database for 'h100'"), std::string::npos);
  EXPECT_EQ(into.size(), 2u);
}

TEST(ProfileDB, LookupPrefersTheSameOccupancyThenTheNearest) {
  const auto k = fakeKernel("a_k", 4, 1e6);
  ProfileDB db("h100");
  db.add(entry(k, 2, stats(1, 2, 2, 2, 2)));
  db.add(entry(k, 6, stats(1, 6, 6, 6, 6)));
  db.add(entry(fakeKernel("b_k", 4, 1e6), 4, stats(1, 9, 9, 9, 9)));
  EXPECT_EQ(db.lookup(k, 6)->veusPerSM, 6);
  EXPECT_EQ(db.lookup(k, 5)->veusPerSM, 6);
  EXPECT_EQ(db.lookup(k, 4)->veusPerSM, 2) << "a tie goes to the lower occupancy";
  EXPECT_EQ(db.lookup(k, 1)->veusPerSM, 2);
  EXPECT_EQ(db.lookup(fakeKernel("c_k", 4, 1e6), 4), nullptr);
}

// The first error message of parsing `text`.
std::string parseError(const std::string& text) {
  auto r = parseProfileDB(text, "bad.json");
  return r.ok() ? std::string("(parsed)") : r.errorText();
}

const char* kGoodEntry =
    R"({"key": "k", "kernel": "a_k", "veus_per_sm": 2, "rtasks": 4, "runs": 1,
        "task_us": {"samples": 2, "median": 1, "mean": 1, "min": 1, "max": 1}})";

std::string withEntries(const std::string& entries, const std::string& version = "1") {
  return R"({"format": "rammer-profile-db", "version": )" + version + R"(, "device": "h100", "entries": [)" +
         entries + "]}";
}

TEST(ProfileDB, MalformedFilesAreRefusedWithTheReason) {
  ASSERT_EQ(parseError(withEntries(kGoodEntry)), "(parsed)");
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"{\n  \"format\": \"rammer-profile-db\",\n  \"version\": 1,,\n}", "bad.json: not valid JSON:"},
      {"{\n  \"format\": \"rammer-profile-db\",\n  \"version\": 1,,\n}", "line 3"},
      {"[1, 2]", "the top level must be a JSON object"},
      {R"({"format": "other", "version": 1})", "\"format\" must be \"rammer-profile-db\""},
      {withEntries("", "2"), "profile database version 2 is newer than this build reads (version 1)"},
      {withEntries("", "\"1\""), "\"version\" must be an integer >= 1"},
      {R"({"format": "rammer-profile-db", "version": 1, "entries": []})", "missing \"device\""},
      {R"({"format": "rammer-profile-db", "version": 1, "device": "h100", "entries": {}})",
       "\"entries\" must be an array"},
      {withEntries("3"), "entry 0: must be an object"},
      {withEntries(R"({"kernel": "a_k"})"), "entry 0: missing \"key\""},
      {withEntries(std::string(kGoodEntry) + "," + R"({"key": "k2", "kernel": "b", "veus_per_sm": 1, "rtasks": 1,
         "runs": 1})"), "entry 1 ('k2'): missing \"task_us\""},
      {withEntries(R"({"key": "k", "kernel": "a_k", "veus_per_sm": 0, "rtasks": 4, "runs": 1, "task_us": {}})"),
       "entry 0 ('k'): \"veus_per_sm\" must be an integer >= 1"},
      {withEntries(R"({"key": "k", "kernel": "a_k", "veus_per_sm": 2, "rtasks": 4, "runs": 1,
         "task_us": {"samples": 2, "median": -1, "mean": 1, "min": 1, "max": 1}})"),
       "entry 0 ('k'): \"task_us\": \"median\" must be a non-negative number of microseconds"},
      {withEntries(R"({"key": "k", "kernel": "a_k", "veus_per_sm": 2, "rtasks": 4, "runs": 1,
         "task_us": {"samples": 2, "median": 5, "mean": 1, "min": 1, "max": 1}})"),
       "min 1 <= median 5, mean 1 <= max 1 does not hold"},
      {withEntries(R"({"key": "k", "kernel": "a_k", "veus_per_sm": 2, "rtasks": 4, "runs": 1,
         "task_us": [1, 2]})"), "\"task_us\" must be an object"},
      {withEntries(std::string(kGoodEntry) + "," + kGoodEntry),
       "entry 1 ('k'): a second entry for the same rKernel at 2 vEUs per SM"},
  };
  for (const Case& c : cases) {
    const std::string got = parseError(c.text);
    EXPECT_NE(got.find(c.want), std::string::npos) << "got: " << got << "\nwant: " << c.want << "\nfor: " << c.text;
  }
}

TEST(ProfiledCostModel, UsesTheMeasurementWhenPresentAndTheAnalyticModelOtherwise) {
  const device::DeviceSpec h100 = testing::smallDevice(2);
  // Compute-bound (4 GFLOP over 4 rTasks, little traffic) so that sharing an SM
  // with more vEUs slows each rTask down and the scaling is visible.
  const auto measuredKernel = fakeKernel("a_k", 4, 4e9, 256, 0, 1e3);
  const auto otherKernel = fakeKernel("b_k", 4, 8e6, 256, 0, 1e6);
  auto db = std::make_shared<ProfileDB>("h100");
  db->add(entry(measuredKernel, 4, stats(16, 12.5, 13, 11, 20)));
  auto analytic = std::make_shared<AnalyticCostModel>();
  ProfiledCostModel model(db, analytic);

  const TaskContext at4{4, 0, 0};
  EXPECT_DOUBLE_EQ(model.taskTimeUs(measuredKernel, h100, at4), 12.5);
  EXPECT_DOUBLE_EQ(model.taskTimeUs(otherKernel, h100, at4), analytic->taskTimeUs(otherKernel, h100, at4));
  EXPECT_EQ(model.measurement(otherKernel, h100, 4), nullptr);

  // Measured at 4 vEUs per SM, asked at 8: scaled as the analytic model scales.
  const TaskContext at8{8, 0, 0};
  const double ratio = analytic->taskTimeUs(measuredKernel, h100, at8) / analytic->taskTimeUs(measuredKernel, h100, at4);
  EXPECT_GT(ratio, 1.0);
  EXPECT_DOUBLE_EQ(model.taskTimeUs(measuredKernel, h100, at8), 12.5 * ratio);

  // Another device: the database does not apply.
  device::DeviceSpec a100 = device::presetDevice("a100").value();
  EXPECT_DOUBLE_EQ(model.taskTimeUs(measuredKernel, a100, at4), analytic->taskTimeUs(measuredKernel, a100, at4));
  EXPECT_DOUBLE_EQ(model.launchOverheadUs(h100), h100.launchOverheadUs);
  EXPECT_DOUBLE_EQ(model.barrierOverheadUs(h100), h100.barrierLatencyUs);
  EXPECT_EQ(model.name(), "profile database (h100, 1 rKernels) + analytic cost model");
}

TEST(ProfiledCostModel, TheSimulatorRunsMeasuredRTasksForTheirMeasuredTime) {
  using testing::exec;
  // Op a: 2 rTasks on 2 vEUs in one program; op b: 2 rTasks after it.
  schedule::Plan plan = testing::handPlan(2, 2, {{{{exec(0, 0)}, {exec(0, 1)}}, 1}, {{{exec(1, 0)}, {exec(1, 1)}}, 1}});
  auto db = std::make_shared<ProfileDB>("h100");
  db->add(entry(plan.ops[0].kernel, 1, stats(2, 7.25, 7.25, 7, 7.5)));
  auto analytic = std::make_shared<AnalyticCostModel>();
  auto trace = Simulator(std::make_shared<ProfiledCostModel>(db, analytic)).run(plan);
  ASSERT_TRUE(trace.ok()) << trace.errorText();
  const double bUs = analytic->taskTimeUs(plan.ops[1].kernel, plan.device, TaskContext{1, 1, 2, 0});
  for (const TaskEvent& t : trace->tasks)
    EXPECT_NEAR(t.endUs - t.startUs, t.task.op == 0 ? 7.25 : bUs, 1e-9) << "op " << t.task.op;

  const ProfileCoverage c = profileCoverage(*db, plan);
  EXPECT_EQ(c.ops, 2u);
  EXPECT_EQ(c.measured, 1u);
}

}  // namespace
}  // namespace rammer::sim
