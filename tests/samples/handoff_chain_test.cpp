// The hand-off microbenchmark's model (samples/zoo/handoff_chain.h): after
// the standard passes and the wavefront policy it is a chain of 128
// operators, each the only consumer of the one before, spread over several
// vEUs, so the predicted critical path runs through every link with a
// hand-off between each two; and the values neither fade nor overflow.
#include <gtest/gtest.h>

#include <cmath>

#include "core/exec/reference_executor.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/critical_path.h"
#include "core/sim/simulator.h"
#include "samples/zoo/handoff_chain.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/host_run.h"

namespace rammer {
namespace {

ir::Graph optimizedChain() {
  ir::Graph g = samples::buildHandoffChain({});
  passes::PassContext ctx;
  auto records = passes::standardPipeline({}).run(g, ctx);
  if (!records) throw std::runtime_error(records.errorText());
  return g;
}

TEST(HandoffChain, IsAChainOfLinksWhosePredictedCriticalPathHandsOffAtEveryLink) {
  const ir::Graph g = optimizedChain();
  const schedule::Plan plan = testing::planSample(g, "wavefront");
  std::vector<size_t> real;
  for (size_t i = 0; i < plan.ops.size(); ++i)
    if (!plan.ops[i].isView) real.push_back(i);
  ASSERT_EQ(real.size(), static_cast<size_t>(samples::kHandoffChainLinks));
  for (size_t k = 1; k < real.size(); ++k) {
    const schedule::PlannedOp& op = plan.ops[real[k]];
    EXPECT_EQ(op.producers, (std::vector<int32_t>{static_cast<int32_t>(real[k - 1])})) << op.name;
    EXPECT_GT(op.kernel.numRTasks, 1) << op.name << ": one rTask would hand off within its vEU";
  }
  ASSERT_EQ(plan.programs.size(), 1u);
  auto trace = sim::Simulator(std::make_shared<sim::AnalyticCostModel>()).run(plan);
  ASSERT_TRUE(trace.ok()) << trace.errorText();
  const sim::CriticalPath path = sim::criticalPath(plan, *trace);
  EXPECT_EQ(path.operators, real.size());
  EXPECT_EQ(path.handoffs, real.size() - 1);
  EXPECT_EQ(path.queued, 0u);
  EXPECT_GT(path.handoffQuantileUs(0.5), 0.0);
}

TEST(HandoffChain, ItsValuesNeitherFadeNorOverflow) {
  const ir::Graph g = samples::buildHandoffChain({});
  auto out = exec::runReference(g, testing::seededInputs(g));
  ASSERT_TRUE(out.ok()) << out.errorText();
  const ir::Tensor& y = out->at(0);
  double sumSq = 0;
  for (float v : y.values<float>()) sumSq += static_cast<double>(v) * v;
  const double rms = std::sqrt(sumSq / static_cast<double>(y.numel()));
  EXPECT_GT(rms, 0.05);
  EXPECT_LT(rms, 20.0);
}

}  // namespace
}  // namespace rammer
