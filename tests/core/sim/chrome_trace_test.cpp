// Chrome trace JSON, parsed back with nlohmann::json: metadata names every
// lane, one tid per vEU, and each rTask, barrier and program is an "X" event
// with the trace's times.
#include "core/sim/chrome_trace.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/sim/simulator.h"
#include "tests/core/sim/sim_fixtures.h"

using namespace rammer;
using namespace rammer::testing;
using nlohmann::json;

namespace {

sim::Trace sampleTrace() {
  auto m = std::make_shared<FixedCostModel>(std::map<std::string, double>{{"a_k", 2.0}, {"b_k", 3.0}}, 1.0, 0.5);
  // 2 SMs x 2 vEUs/SM; vEU 3 stays idle.
  auto plan = handPlan(2, 2, {{{{exec(0, 0)}, {exec(0, 1)}, {wait({{0, 0}, {1, 0}}), exec(1, 0)}, {}}, 2}});
  return sim::Simulator(m).run(plan).value();
}

std::vector<json> eventsWith(const json& doc, const std::string& ph, const std::string& cat = {}) {
  std::vector<json> out;
  for (const auto& e : doc.at("traceEvents"))
    if (e.at("ph") == ph && (cat.empty() || e.value("cat", "") == cat)) out.push_back(e);
  return out;
}

}  // namespace

TEST(SimChromeTrace, MetadataNamesTheDeviceAndEveryVEU) {
  const json doc = json::parse(sim::chromeTraceJson(sampleTrace()));
  std::map<int, std::string> threads;
  std::map<int, int> sortIndex;
  std::string process;
  for (const auto& e : eventsWith(doc, "M")) {
    EXPECT_EQ(e.at("pid"), 1);
    if (e.at("name") == "process_name") process = e.at("args").at("name");
    if (e.at("name") == "thread_name") threads[e.at("tid")] = e.at("args").at("name");
    if (e.at("name") == "thread_sort_index") sortIndex[e.at("tid")] = e.at("args").at("sort_index");
  }
  EXPECT_EQ(process, "h100 (predicted: fixed test model)");
  // tid 0: the programs; tid 1 + v: vEU v, on SM v % 2.
  EXPECT_EQ(threads, (std::map<int, std::string>{
                         {0, "rPrograms"}, {1, "vEU 0 (SM 0)"}, {2, "vEU 1 (SM 1)"}, {3, "vEU 2 (SM 0)"}, {4, "vEU 3 (SM 1)"}}));
  // Lanes grouped by SM: vEU 0, vEU 2, then vEU 1, vEU 3.
  ASSERT_EQ(sortIndex.size(), 5u);
  EXPECT_LT(sortIndex[0], sortIndex[1]);
  EXPECT_LT(sortIndex[1], sortIndex[3]);
  EXPECT_LT(sortIndex[3], sortIndex[2]);
  EXPECT_LT(sortIndex[2], sortIndex[4]);
  EXPECT_EQ(doc.at("displayTimeUnit"), "ns");
  EXPECT_EQ(doc.at("otherData").at("source"), "predicted: fixed test model");
  EXPECT_DOUBLE_EQ(doc.at("otherData").at("total_us").get<double>(), 6.5);
}

TEST(SimChromeTrace, RTasksBarriersAndProgramsAreCompleteEvents) {
  const sim::Trace t = sampleTrace();
  const json doc = json::parse(sim::chromeTraceJson(t));
  const auto tasks = eventsWith(doc, "X", "rtask");
  ASSERT_EQ(tasks.size(), 3u);
  std::set<std::tuple<int, int64_t, int>> seen;  // (op index by name, rtask, tid)
  for (const auto& e : tasks) {
    const auto& a = e.at("args");
    EXPECT_EQ(e.at("name"), a.at("op"));
    EXPECT_EQ(a.at("kernel"), a.at("op").get<std::string>() + "_k");
    seen.insert({a.at("op") == "a" ? 0 : 1, a.at("rtask").get<int64_t>(), e.at("tid").get<int>()});
  }
  // a[0] on vEU 0, a[1] on vEU 1, b[0] on vEU 2 (tid = vEU + 1).
  EXPECT_EQ(seen, (std::set<std::tuple<int, int64_t, int>>{{0, 0, 1}, {0, 1, 2}, {1, 0, 3}}));
  for (const auto& e : tasks) {
    if (e.at("args").at("op") != "b") continue;
    // b[0]: released at 3 + 0.5, runs 3 us.
    EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), 3.5);
    EXPECT_DOUBLE_EQ(e.at("dur").get<double>(), 3.0);
    EXPECT_EQ(e.at("args").at("order"), 1);
    EXPECT_EQ(e.at("args").at("program"), 0);
  }
  const auto barriers = eventsWith(doc, "X", "barrier");
  ASSERT_EQ(barriers.size(), 1u);
  EXPECT_EQ(barriers[0].at("tid"), 3);
  EXPECT_DOUBLE_EQ(barriers[0].at("ts").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(barriers[0].at("dur").get<double>(), 2.5);
  // Released by the last of (0,0) and (1,0); both end at 3, the first checked wins.
  EXPECT_EQ(barriers[0].at("args").at("released_by_order"), 0);
  const auto programs = eventsWith(doc, "X", "program");
  ASSERT_EQ(programs.size(), 1u);
  EXPECT_EQ(programs[0].at("tid"), 0);
  EXPECT_DOUBLE_EQ(programs[0].at("dur").get<double>(), 6.5);
  EXPECT_EQ(programs[0].at("args").at("veus"), 4);
  EXPECT_EQ(programs[0].at("args").at("veus_per_sm"), 2);
  // Nothing else.
  EXPECT_EQ(doc.at("traceEvents").size(), eventsWith(doc, "M").size() + tasks.size() + barriers.size() + programs.size());
}

TEST(SimChromeTrace, NamesAreEscapedAndUnnamedOpsLabelled) {
  sim::Trace t = sampleTrace();
  t.opNames = {"a \"quoted\"\nname\\", ""};
  t.opTypes = {"Relu", "Add"};
  t.source = "tab\there";
  const json doc = json::parse(sim::chromeTraceJson(t));  // throws if invalid
  std::set<std::string> names;
  for (const auto& e : eventsWith(doc, "X", "rtask")) names.insert(e.at("name"));
  EXPECT_EQ(names, (std::set<std::string>{"a \"quoted\"\nname\\", "#1 (Add)"}));
  EXPECT_EQ(doc.at("otherData").at("source"), "tab\there");
}

TEST(SimChromeTrace, AnEmptyTraceIsValidJson) {
  const json doc = json::parse(sim::chromeTraceJson(sim::Trace{}));
  EXPECT_EQ(eventsWith(doc, "X").size(), 0u);
  EXPECT_EQ(eventsWith(doc, "M").size(), 3u);  // process, programs lane name and sort index
}
