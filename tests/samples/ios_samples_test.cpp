// IOS on every sample model the build writes (optimized, batch 1, H100
// preset, the analytic cost model as `rammer schedule` uses it):
//  - its predicted latency is never above the sequential policy's (IOS's
//    space holds the sequential schedule: one operator per stage), for the
//    parallel variant on every sample and for merge and both on the CNNs;
//  - where it merges operators (Inception's 1x1 convolutions, NASNet's and
//    NAS-Bench's), the plan on its own graph computes what the model means
//    on the emulator, and on the host target for the Inception block.
// Every sample x policy, IOS included, also runs on the emulator
// (emulator_samples_test.cpp) and the host target (host_samples_test.cpp).
#include <gtest/gtest.h>

#include <set>

#include "core/exec/plan_emulator.h"
#include "core/exec/reference_executor.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/samples/sample_helpers.h"
#include "tests/support/host_run.h"

namespace rammer {
namespace {

using testing::optimizedSampleGraph;

// The recurrent models take IOS about 10 s per plan (thousands of
// operators): the parallel variant only.
bool recurrent(const std::string& sample) {
  static const std::set<std::string> rnn = {"deepspeech2", "lstm_tc", "seq2seq"};
  return rnn.count(sample) != 0;
}

schedule::Plan plan(const ir::Graph& g, const std::string& policy, const std::string& variant = "parallel") {
  schedule::PolicyOptions options = sim::policyOptions(std::make_shared<sim::AnalyticCostModel>());
  options.ios.variant = variant;
  auto p = schedule::makePolicy(policy, options);
  if (!p) throw std::runtime_error(p.errorText());
  auto planned = (*p)->schedule(g, device::presetDevice("h100").value(), {});
  if (!planned) throw std::runtime_error(planned.errorText());
  return std::move(planned).value();
}

double predictedUs(const schedule::Plan& p) {
  auto trace = sim::Simulator(std::make_shared<sim::AnalyticCostModel>()).run(p);
  if (!trace) throw std::runtime_error(trace.errorText());
  return trace->totalUs;
}

size_t mergedOperators(const schedule::Plan& p) {
  size_t n = 0;
  for (const auto& op : p.ops) n += op.opType == "Split" && op.name.find('+') != std::string::npos;
  return n;
}

class IosSample : public ::testing::TestWithParam<std::string> {};

TEST_P(IosSample, NeverAboveTheSequentialPolicy) {
  const std::string& sample = GetParam();
  const ir::Graph g = optimizedSampleGraph(sample);
  const double sequential = predictedUs(plan(g, "sequential"));
  std::vector<std::string> variants = {"parallel"};
  if (!recurrent(sample)) variants = {"parallel", "merge", "both"};
  for (const std::string& variant : variants) {
    const schedule::Plan ios = plan(g, "ios", variant);
    EXPECT_LE(predictedUs(ios), sequential) << sample << ", IOS " << variant;
    if (variant == "parallel") EXPECT_EQ(ios.graph, nullptr) << "only merges rewrite the graph";
  }
}

INSTANTIATE_TEST_SUITE_P(AllSamples, IosSample, ::testing::ValuesIn(samples_test::buildSampleNames()),
                         [](const auto& i) { return i.param; });

// The samples where IOS's merge variant merges operators.
class IosMergeSample : public ::testing::TestWithParam<std::string> {};

TEST_P(IosMergeSample, MergedPlanMatchesTheReferenceOnTheEmulator) {
  const std::string& sample = GetParam();
  const ir::Graph g = optimizedSampleGraph(sample);
  const schedule::Plan p = plan(g, "ios", "merge");
  ASSERT_NE(p.graph, nullptr);
  EXPECT_GT(mergedOperators(p), 0u);
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  auto got = exec::emulatePlan(p, g, inputs);  // runs the plan's own graph
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-4) << sample;
}

INSTANTIATE_TEST_SUITE_P(Samples, IosMergeSample,
                         ::testing::Values("inception_block", "nasbench_cells", "nasnet_cifar", "inception_v3"),
                         [](const auto& i) { return std::string(i.param); });

TEST(IosMergeHost, MergedInceptionBlockMatchesTheReferenceAsGeneratedCode) {
  const ir::Graph g = optimizedSampleGraph("inception_block");
  const schedule::Plan p = plan(g, "ios", "merge");
  ASSERT_EQ(mergedOperators(p), 1u);
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  auto got = runtime::executeOnHost(p, g, inputs, testing::hostTestOptions());
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-4);
}

}  // namespace
}  // namespace rammer
