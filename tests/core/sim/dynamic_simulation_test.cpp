// The simulator's prediction of a dynamic program (issue #31 item 4): a free
// vEU takes the next rTask of the operator at the queue's head after one
// dispatch; no rTask starts before every rTask of its producers has ended;
// vEUs never overlap; a gate that never opens is an error, not a hang.
#include "core/sim/dynamic_simulation.h"

#include <gtest/gtest.h>

#include <map>

#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"
#include "tests/core/schedule/policy_fixtures.h"
#include "tests/support/plan_mutation.h"

namespace rammer::sim {
namespace {

TEST(DynamicSimulation, EveryRTaskOnceAfterItsProducersOnAFreeVEU) {
  const auto g = testing::optimizedModel("inception_block", "dynamic");
  const schedule::Plan plan = testing::analyticPlan("dynamic", *g).value();
  auto model = std::make_shared<AnalyticCostModel>();
  auto trace = Simulator(model).run(plan);
  ASSERT_TRUE(trace.ok()) << trace.errorText();
  EXPECT_EQ(trace->tasks.size(), plan.numRTasks());
  EXPECT_EQ(trace->metrics.at("dispatches"), static_cast<double>(plan.numRTasks()));
  EXPECT_GT(trace->smEfficiency, 0.0);
  const double dispatch = model->dispatchOverheadUs(plan.device), handoff = model->queueHandoffUs(plan.device);
  EXPECT_DOUBLE_EQ(dispatch, plan.device.dispatchLatencyUs);
  std::map<int32_t, double> lastEnd, firstStart;          // per op
  std::map<std::pair<int32_t, int32_t>, double> veuFree;  // (program, vEU) -> end of its last rTask
  std::map<std::pair<int32_t, int64_t>, int> seen;
  for (const TaskEvent& t : trace->tasks) {
    EXPECT_EQ((seen[{t.task.op, t.task.rtask}]++), 0) << "an rTask ran twice";
    EXPECT_GE(t.endUs, t.startUs);
    auto& free = veuFree[{t.program, t.veu}];
    EXPECT_GE(t.startUs + 1e-9, free + dispatch) << "vEU " << t.veu << " overlaps or skips its dispatch";
    free = t.endUs;
    lastEnd[t.task.op] = std::max(lastEnd[t.task.op], t.endUs);
    firstStart.try_emplace(t.task.op, t.startUs);
    firstStart[t.task.op] = std::min(firstStart[t.task.op], t.startUs);
  }
  for (const auto& [op, start] : firstStart)
    for (int32_t p : plan.ops[static_cast<size_t>(op)].producers)
      if (lastEnd.count(p)) {
        // The gate opens at the producer's last end; the push is seen a hand-off later, then one dispatch.
        EXPECT_GE(start + 1e-9, lastEnd[p] + handoff + dispatch) << plan.ops[static_cast<size_t>(op)].name;
      }
}

TEST(DynamicSimulation, AGateThatNeverOpensIsAnErrorNamingTheOperator) {
  const auto g = testing::optimizedModel("inception_block", "dynamic");
  const schedule::Plan good = testing::analyticPlan("dynamic", *g).value();
  size_t gated = 0;
  while (good.programs[0].dynamic->ops[gated].gate == 0) ++gated;
  const schedule::Plan plan =
      testing::withDynamicEdit(good, 0, [&](schedule::DynamicProgram& d) { d.ops[gated].gate += 1; });
  const schedule::DynamicProgram* dp = plan.programs[0].dynamic.get();
  auto trace = Simulator(std::make_shared<AnalyticCostModel>()).run(plan);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.errorText().find("stalls"), std::string::npos) << trace.errorText();
  EXPECT_NE(trace.errorText().find(plan.ops[static_cast<size_t>(dp->ops[gated].op)].name), std::string::npos)
      << trace.errorText();
}

}  // namespace
}  // namespace rammer::sim
