// The IOS policy on real graphs: its plan is valid, one program of stages
// separated by barriers, explained stage by stage; its predicted latency is
// never above the sequential policy's (IOS's space holds the sequential
// schedule); it honours pinned rKernels and cuts; bad options are named.
#include "core/schedule/ios_policy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/exec/plan_emulator.h"
#include "core/exec/reference_executor.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/validator.h"
#include "tests/core/schedule/policy_fixtures.h"
#include "tests/support/graph_builder.h"

namespace rammer::schedule {
namespace {

using testing::predictedUs;

std::shared_ptr<const ir::Graph> optimized(const std::string& name) { return testing::optimizedModel(name, "ios"); }

ir::Result<Plan> plan(const std::string& policy, const ir::Graph& g, const Constraints& c = {},
                      IosOptions ios = {}) {
  return testing::analyticPlan(policy, g, c, std::move(ios));
}

TEST(IosPolicy, PlansValidStagesAndExplainsThem) {
  for (const char* model : {"sample_cnn", "inception_block"}) {
    SCOPED_TRACE(model);
    const auto g = optimized(model);
    auto ios = plan("ios", *g);
    ASSERT_TRUE(ios.ok()) << ios.errorText();
    EXPECT_TRUE(checkPlan(*ios, *g).ok());
    EXPECT_EQ(ios->policy, "ios");
    // After the rKernel choices: the search's summary, then one line per stage.
    std::string summary;
    size_t stageLines = 0;
    for (const auto& d : ios->decisions) {
      if (d.rfind("ios (parallel, r=3, s=8, programs: one): ", 0) == 0) summary = d;
      stageLines += d.rfind("stage ", 0) == 0;
    }
    EXPECT_GT(stageLines, 0u);
    EXPECT_EQ(ios->programs.size(), 1u);  // by default one program, a barrier between stages
    EXPECT_NE(summary.find(std::to_string(stageLines) + " stages (0 merged); DP "), std::string::npos) << summary;

    auto sequential = plan("sequential", *g);
    ASSERT_TRUE(sequential.ok());
    EXPECT_LE(predictedUs(*ios), predictedUs(*sequential));

    // One launch per stage instead: a program per stage.
    IosOptions perStage;
    perStage.programs = "stage";
    auto launched = plan("ios", *g, {}, perStage);
    ASSERT_TRUE(launched.ok()) << launched.errorText();
    // Its own stages (a launch per stage prices the stages differently).
    size_t launchedStages = 0;
    for (const auto& d : launched->decisions) launchedStages += d.rfind("stage ", 0) == 0;
    EXPECT_GT(launchedStages, 0u);
    EXPECT_EQ(launched->programs.size(), launchedStages);
    EXPECT_TRUE(checkPlan(*launched, *g).ok());
  }
}

// A block too wide for the DP's budget is searched again in halves, and
// the policy says so: a fan-out of 40 independent operators plans.
TEST(IosPolicy, ABlockOverTheEndingsBudgetIsSearchedInHalves) {
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 64});
  std::vector<ir::ValueId> branches;
  for (int i = 0; i < 40; ++i)
    branches.push_back(b.op("Mul", "mul" + std::to_string(i),
                            {x, b.constant("s" + std::to_string(i),
                                           ir::Tensor::scalar<float>(1.0f + static_cast<float>(i)))}));
  b.output(b.op("Concat", "concat", branches, testing::attrs({{"axis", int64_t{0}}})));
  ASSERT_TRUE(b.infer().empty());
  ir::Graph g = std::move(b.graph());
  passes::PassContext ctx;
  ASSERT_TRUE(passes::standardPipeline().run(g, ctx).ok());  // each Mul becomes a fused element-wise operator
  IosOptions small;
  small.maxBlockEndings = 20'000;  // 16 independent operators need 3^16
  auto ios = plan("ios", g, {}, small);
  ASSERT_TRUE(ios.ok()) << ios.errorText();
  EXPECT_TRUE(checkPlan(*ios, g).ok());
  bool halved = false;
  for (const auto& d : ios->decisions)
    halved = halved || d.find("endings: blocks of 8 operators from here") != std::string::npos;
  EXPECT_TRUE(halved);
}

// Inception's branches are independent: some stage runs several groups.
TEST(IosPolicy, RunsIndependentBranchesConcurrently) {
  const auto g = optimized("inception_block");
  auto ios = plan("ios", *g);
  ASSERT_TRUE(ios.ok());
  bool concurrent = false;
  for (const auto& d : ios->decisions) concurrent = concurrent || (d.rfind("stage ", 0) == 0 && d.find(" | ") != std::string::npos);
  EXPECT_TRUE(concurrent);
  // r = s = 1 leaves one operator per stage: more stages, no faster.
  IosOptions one;
  one.maxGroupOps = 1;
  one.maxGroups = 1;
  auto narrow = plan("ios", *g, {}, one);
  ASSERT_TRUE(narrow.ok()) << narrow.errorText();
  EXPECT_GE(predictedUs(*narrow), predictedUs(*ios));
}

TEST(IosPolicy, HonoursPinnedRKernelsAndCuts) {
  const auto g = optimized("sample_cnn");
  Constraints c;
  c.kernelFor["stem"] = "conv_igemm_32x32";
  c.cutBefore.insert("block.b");
  auto ios = plan("ios", *g, c);
  ASSERT_TRUE(ios.ok()) << ios.errorText();
  EXPECT_EQ(ios->programs.size(), 2u);  // the one program, cut at block.b's stage
  for (const auto& op : ios->ops)
    if (op.name == "stem") {
      EXPECT_EQ(op.kernel.name, "conv_igemm_32x32");
    }
  EXPECT_TRUE(checkPlan(*ios, *g).ok());
}

TEST(IosPolicy, BadOptionsAreNamed) {
  const auto g = optimized("sample_cnn");
  IosOptions odd;
  odd.variant = "sideways";
  EXPECT_NE(plan("ios", *g, {}, odd).errorText().find("unknown IOS variant 'sideways'"), std::string::npos);
  IosOptions none;
  none.maxGroups = 0;
  EXPECT_NE(plan("ios", *g, {}, none).errorText().find("at least one"), std::string::npos);
  IosOptions layout;
  layout.programs = "two";
  EXPECT_NE(plan("ios", *g, {}, layout).errorText().find("unknown IOS program layout 'two'"), std::string::npos);
}

// Operator merge: Inception's three 1x1 convolutions on the block input
// become one Conv and a Split in the plan's own graph; the plan is valid
// there, computes what the graph means on the emulator, and the other
// operators keep their rKernels. A schedule edit naming an operator keeps it
// out of any merge.
TEST(IosPolicy, MergesConvolutionsOnOneInputIntoOneRKernel) {
  const auto g = optimized("inception_block");
  const std::vector<ir::Tensor> inputs = {[&] {
    ir::Tensor t(ir::DType::Float32, g->value(g->inputs()[0]).type.shape);
    float v = 0;
    for (float& x : t.values<float>()) x = std::sin(v += 0.37f);
    return t;
  }()};
  auto want = exec::runReference(*g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  for (const char* variant : {"merge", "both"}) {
    SCOPED_TRACE(variant);
    IosOptions o;
    o.variant = variant;
    auto ios = plan("ios", *g, {}, o);
    ASSERT_TRUE(ios.ok()) << ios.errorText();
    std::string summary;
    for (const auto& d : ios->decisions)
      if (d.rfind(std::string("ios (") + variant + ",", 0) == 0) summary = d;
    ASSERT_FALSE(summary.empty());
    if (std::string(variant) == "merge") {
      ASSERT_NE(ios->graph, nullptr);
      EXPECT_NE(summary.find("(1 merged)"), std::string::npos) << summary;
      bool wide = false, split = false;
      for (const auto& op : ios->ops) {
        wide = wide || (op.opType == "Conv" && op.name == "branch1x1.conv+branch5x5_1.conv+branch3x3dbl_1.conv");
        split = split || op.opType == "Split";
        EXPECT_NE(op.name, "branch1x1.conv");  // merged away
      }
      EXPECT_TRUE(wide && split);
      bool explained = false;
      for (const auto& d : ios->decisions)
        explained = explained || d.find(": merge branch1x1.conv + branch5x5_1.conv + branch3x3dbl_1.conv (one Conv and a Split)") != std::string::npos;
      EXPECT_TRUE(explained);
    }
    const ir::Graph& runs = graphOf(*ios, *g);
    EXPECT_TRUE(checkPlan(*ios, runs).ok());
    auto got = exec::emulatePlan(*ios, *g, inputs, {});  // the emulator takes the plan's own graph
    ASSERT_TRUE(got.ok()) << got.errorText();
    ASSERT_EQ(got->outputs.size(), want->size());
    const auto gv = got->outputs[0].values<float>();
    const auto wv = (*want)[0].values<float>();
    for (size_t e = 0; e < wv.size(); ++e) ASSERT_NEAR(gv[e], wv[e], 1e-4f * (1 + std::fabs(wv[e]))) << e;
    auto sequential = plan("sequential", *g);
    EXPECT_LE(predictedUs(*ios), predictedUs(*sequential));
  }
  IosOptions o;
  o.variant = "merge";
  Constraints c;
  c.kernelFor["branch1x1.conv"] = "conv_igemm_32x32";
  auto pinned = plan("ios", *g, c, o);
  ASSERT_TRUE(pinned.ok()) << pinned.errorText();
  bool kept = false;
  for (const auto& op : pinned->ops) kept = kept || (op.name == "branch1x1.conv" && op.kernel.name == "conv_igemm_32x32");
  EXPECT_TRUE(kept);
  EXPECT_TRUE(checkPlan(*pinned, graphOf(*pinned, *g)).ok());
}

}  // namespace
}  // namespace rammer::schedule
