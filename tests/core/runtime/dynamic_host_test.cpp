// A dynamic program (--policy dynamic) as generated code on the CPU: its
// vEU fibers take rTasks from the same ready queue the GPU kernel uses.
// Outputs match the reference at any worker count, the measured records
// say which vEU ran each rTask, and a gate that never opens is reported as
// a deadlock naming the queue entry, not a hang.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/exec/reference_executor.h"
#include "core/runtime/host_execution.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/host_run.h"
#include "tests/support/plan_mutation.h"

namespace rammer::runtime {
namespace {

// The dynamic plan's host program at each worker count: outputs match the
// reference, every rTask runs once, each vEU one at a time, none before
// its producers.
void expectEveryRTaskOnceAndRight(const schedule::Plan& plan, const ir::Graph& g,
                                  std::initializer_list<int> workerCounts) {
  ASSERT_EQ(plan.programs.size(), 1u);
  ASSERT_TRUE(plan.programs[0].dynamic);
  const int veus = plan.programs[0].program.numVEUs();
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  HostExecutionOptions o = testing::hostTestOptions();
  o.measureTrace = true;
  auto built = buildHostPlan(plan, g, o);
  ASSERT_TRUE(built.ok()) << built.errorText();
  for (int workers : workerCounts) {
    o.workers = workers;
    auto got = runHostProgram(*built, plan, g, inputs, o);
    ASSERT_TRUE(got.ok()) << workers << " workers: " << got.errorText();
    EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-5) << workers << " workers";
    ASSERT_TRUE(got->trace.has_value());
    const sim::Trace& t = *got->trace;
    EXPECT_EQ(t.tasks.size(), plan.numRTasks()) << workers << " workers";
    EXPECT_EQ(t.metrics.at("unrecorded_rtasks"), 0);
    std::set<std::pair<int32_t, int64_t>> seen;
    std::map<int32_t, double> lastEnd, firstStart;
    std::map<int32_t, std::vector<const sim::TaskEvent*>> byVEU;
    for (const sim::TaskEvent& e : t.tasks) {
      EXPECT_TRUE(seen.insert({e.task.op, e.task.rtask}).second) << "rTask run twice: op " << e.task.op;
      ASSERT_GE(e.veu, 0);
      ASSERT_LT(e.veu, veus);
      EXPECT_LT(e.sm, workers) << "the host records the worker as the SM";
      byVEU[e.veu].push_back(&e);
      lastEnd[e.task.op] = std::max(lastEnd[e.task.op], e.endUs);
      auto [it, fresh] = firstStart.try_emplace(e.task.op, e.startUs);
      if (!fresh) it->second = std::min(it->second, e.startUs);
    }
    // A vEU runs one rTask at a time, in the order its records number.
    for (const auto& [veu, events] : byVEU)
      for (size_t i = 0; i < events.size(); ++i) {
        EXPECT_EQ(events[i]->order, static_cast<int32_t>(i)) << "vEU " << veu;
        if (i > 0) EXPECT_GE(events[i]->startUs, events[i - 1]->endUs) << "vEU " << veu;
      }
    // No rTask starts before every rTask of its producers ended.
    for (const auto& [op, start] : firstStart)
      for (int32_t p : plan.ops[static_cast<size_t>(op)].producers)
        if (lastEnd.count(p)) EXPECT_GE(start, lastEnd[p]) << plan.ops[static_cast<size_t>(op)].name;
    std::cout << workers << " workers: " << byVEU.size() << " of " << veus << " vEUs ran rTasks, " << got->meanRunMs
              << " ms\n";
  }
}

TEST(DynamicHostRun, EveryWorkerCountMatchesAndTheRecordsSayWhichVEURanWhat) {
  const ir::Graph g = testing::optimizedSampleGraph("inception_block");
  expectEveryRTaskOnceAndRight(testing::planSample(g, "dynamic"), g, {1, 2, 5});
}

// Claim shards (a queue per SM with stealing, DynamicProgram::claimShards):
// 4 shards, and one per vEU, where a vEU finds its own shard empty after
// one rTask at most and steals the rest; still every rTask once, in order.
TEST(DynamicHostRun, ClaimShardsHandOutEveryRTaskOnce) {
  const ir::Graph g = testing::optimizedSampleGraph("inception_block");
  const int veus = testing::planSample(g, "dynamic").programs.at(0).program.numVEUs();
  for (int shards : {4, veus}) {
    schedule::Constraints c;
    c.claimShardsFor["concat"] = shards;
    const schedule::Plan plan = testing::planSample(g, "dynamic", "h100", c);
    ASSERT_EQ(plan.programs.at(0).dynamic->claimShards, shards);
    std::cout << shards << " claim shards:\n";
    expectEveryRTaskOnceAndRight(plan, g, {2, 5});
  }
}

TEST(DynamicHostRun, AGateThatNeverOpensIsADeadlockNamingTheQueueEntry) {
  const ir::Graph g = testing::optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = testing::planSample(g, "dynamic");
  ASSERT_TRUE(plan.programs[0].dynamic);
  // The last operator waits for one producer rTask more than there are.
  const schedule::Plan broken =
      testing::withDynamicEdit(plan, 0, [](schedule::DynamicProgram& dp) { dp.ops.back().gate += 1; });
  auto got = executeOnHost(broken, g, testing::seededInputs(g), testing::hostTestOptions());
  ASSERT_FALSE(got.ok());
  const std::string e = got.errorText();
  EXPECT_NE(e.find("deadlock in program 0"), std::string::npos) << e;
  EXPECT_NE(e.find("waits for ready-queue entry " + std::to_string(plan.programs[0].dynamic->ops.size() - 1)),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("gate never opened"), std::string::npos) << e;
  std::cout << e.substr(0, 400) << "\n";
}

}  // namespace
}  // namespace rammer::runtime
