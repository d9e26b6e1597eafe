// GraphTurbo on every sample model the build writes (optimized, batch 1,
// H100 preset, the analytic cost model as `rammer schedule` uses it): the
// plan is valid on its own graph, and its predicted DRAM traffic is never
// above the sequential plan's (a fused group reads its inputs and writes
// its output once; its halos and weights re-read hit L2). Every sample x
// policy, GraphTurbo included, also runs on the emulator
// (emulator_samples_test.cpp) and the host target (host_samples_test.cpp).
#include <gtest/gtest.h>

#include "core/schedule/policy.h"
#include "core/schedule/rtask_needs.h"
#include "core/schedule/validator.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/plan_figures.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/samples/sample_helpers.h"

namespace rammer {
namespace {

schedule::Plan plan(const ir::Graph& g, const std::string& policy) {
  auto p = schedule::makePolicy(policy, sim::policyOptions(std::make_shared<sim::AnalyticCostModel>()));
  if (!p) throw std::runtime_error(p.errorText());
  auto planned = (*p)->schedule(g, device::presetDevice("h100").value(), {});
  if (!planned) throw std::runtime_error(planned.errorText());
  return std::move(planned).value();
}

class GraphTurboSample : public ::testing::TestWithParam<std::string> {};

TEST_P(GraphTurboSample, ValidAndNoMoreDramTrafficThanSequential) {
  const ir::Graph g = testing::optimizedSampleGraph(GetParam());
  const schedule::Plan gt = plan(g, "graphturbo");
  EXPECT_TRUE(schedule::checkPlan(gt, schedule::graphOf(gt, g)).ok());
  const double sequential = sim::figuresOf(plan(g, "sequential")).dramBytes;
  const double grouped = sim::figuresOf(gt).dramBytes;
  EXPECT_LE(grouped, sequential);
  size_t groups = 0;
  for (const auto& op : gt.ops) groups += op.opType == "FusedGroup";
  const schedule::RTaskNeeds needs(gt.ops, schedule::graphOf(gt, g));
  std::printf("[ graphturbo ] %s: %zu groups, %s, DRAM %.1f MB vs sequential %.1f MB\n", GetParam().c_str(), groups,
              needs.any() ? "some waits at instance grain" : "waits per operator", grouped / 1e6, sequential / 1e6);
}

INSTANTIATE_TEST_SUITE_P(AllSamples, GraphTurboSample, ::testing::ValuesIn(samples_test::buildSampleNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rammer
