// A persistent program only where it pays (issue #45 item 5): a program the
// cost model predicts slower than its operators as launches is planned as
// launches, so a Rammer plan is never predicted slower than RammerBase's.
// The calibrated model is the one `rammer calibrate` fitted on the
// committed H100 leases (resources/calibrations/h100.json), whose rTask
// times, launches and hand-offs are those traces'.
#include "core/pipeline/launch_choice.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/pipeline/pipeline.h"
#include "core/schedule/validator.h"
#include "core/sim/calibration.h"

namespace rammer::pipeline {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const sim::CostModel> calibrated() {
  auto c = sim::loadCalibration(RAMMER_SOURCE_DIR "/resources/calibrations/h100.json");
  EXPECT_TRUE(c.ok()) << c.errorText();
  return c ? std::make_shared<const sim::CalibratedCostModel>(std::make_shared<const sim::Calibration>(std::move(c).value()))
           : nullptr;
}

fs::path paperModel(const std::string& name) { return fs::path(RAMMER_BINARY_DIR) / "samples" / (name + ".onnx"); }

struct Planned {
  std::shared_ptr<const schedule::Plan> plan;
  std::shared_ptr<const sim::Trace> predicted;
  std::optional<LaunchChoice> launches;
};
Planned planned(const fs::path& model, schedule::PolicyId policy, std::shared_ptr<const sim::CostModel> cost,
                bool fallback = true) {
  Options o;
  o.modelPath = model.string();
  o.policy = policy;
  o.costModel = std::move(cost);
  o.launchFallback = fallback;
  Pipeline p(o);
  const Report r = p.run(Stage::Import, Stage::Simulate);
  EXPECT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  return {p.artifacts().plan, p.artifacts().predicted, p.artifacts().launches};
}

TEST(LaunchChoice, AlexnetsChainIsPlannedAsLaunchesWhereThePersistentProgramIsPredictedSlower) {
  if (!fs::exists(paperModel("alexnet"))) GTEST_SKIP() << "the paper samples are not built";
  const auto model = calibrated();
  ASSERT_TRUE(model);
  const Planned persistent = planned(paperModel("alexnet"), schedule::PolicyId::Wavefront, model, false);
  const Planned base = planned(paperModel("alexnet"), schedule::PolicyId::Sequential, model);
  const Planned chosen = planned(paperModel("alexnet"), schedule::PolicyId::Wavefront, model);
  ASSERT_TRUE(persistent.predicted && base.predicted && chosen.predicted);
  // The premise (the fourth lease measured it too): one persistent program, slower.
  ASSERT_EQ(persistent.plan->programs.size(), 1u);
  ASSERT_GT(persistent.predicted->totalUs, base.predicted->totalUs);
  ASSERT_TRUE(chosen.launches);
  EXPECT_EQ(chosen.launches->replaced, std::vector<size_t>{0});
  EXPECT_NEAR(chosen.launches->persistentUs, persistent.predicted->totalUs, 1e-6);
  EXPECT_NEAR(chosen.launches->launchesUs, base.predicted->totalUs, 1e-6);
  EXPECT_NEAR(chosen.launches->chosenUs, chosen.predicted->totalUs, 1e-6);
  EXPECT_LE(chosen.predicted->totalUs, base.predicted->totalUs + 1e-6);
  // A launch per operator, as RammerBase plans it, and the plan still valid.
  EXPECT_EQ(chosen.plan->programs.size(), base.plan->programs.size());
  EXPECT_EQ(chosen.plan->policy, "wavefront");
  Options o;
  o.modelPath = paperModel("alexnet").string();
  Pipeline check(o);
  ASSERT_TRUE(check.run(Stage::Import, Stage::Optimize).ok());
  EXPECT_TRUE(schedule::checkPlan(*chosen.plan, *check.artifacts().optimized).ok());
}

// Rammer (the wavefront policy) is never predicted slower than RammerBase
// on the paper's models, and a program that wins stays persistent.
TEST(LaunchChoice, NoPaperModelIsPredictedSlowerThanRammerBase) {
  if (!fs::exists(paperModel("alexnet"))) GTEST_SKIP() << "the paper samples are not built";
  const auto model = calibrated();
  ASSERT_TRUE(model);
  size_t keptPersistent = 0;
  for (const std::string name : {"alexnet", "resnext29_cifar", "nasnet_cifar", "lstm_tc", "seq2seq", "deepspeech2"}) {
    SCOPED_TRACE(name);
    const Planned base = planned(paperModel(name), schedule::PolicyId::Sequential, model);
    const Planned rammer = planned(paperModel(name), schedule::PolicyId::Wavefront, model);
    ASSERT_TRUE(base.predicted && rammer.predicted);
    EXPECT_LE(rammer.predicted->totalUs, base.predicted->totalUs * (1 + 1e-9));
    if (!rammer.launches || rammer.launches->replaced.size() < rammer.plan->programs.size()) ++keptPersistent;
  }
  EXPECT_GE(keptPersistent, 3u) << "the models with parallel work keep persistent programs";
}

TEST(LaunchChoice, PlansOfOtherOperatorsAreLeftAsTheyAre) {
  const fs::path cnn = RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx";
  Options o;
  o.modelPath = cnn.string();
  o.import.batch = 1;
  o.policy = schedule::PolicyId::Wavefront;
  Pipeline p(o);
  ASSERT_TRUE(p.run(Stage::Import, Stage::Schedule).ok());
  schedule::Plan chosen = *p.artifacts().plan;
  schedule::Plan other = chosen;
  other.ops.pop_back();
  EXPECT_FALSE(chooseLaunches(chosen, other, defaultCostModel()));
  EXPECT_TRUE(weighsLaunches(schedule::PolicyId::Wavefront));
  EXPECT_TRUE(weighsLaunches(schedule::PolicyId::Greedy));
  EXPECT_FALSE(weighsLaunches(schedule::PolicyId::Sequential));
  EXPECT_FALSE(weighsLaunches(schedule::PolicyId::Dynamic));
  EXPECT_FALSE(weighsLaunches(schedule::PolicyId::Ios));
  EXPECT_FALSE(weighsLaunches(schedule::PolicyId::GraphTurbo));
}

}  // namespace
}  // namespace rammer::pipeline
