// The one translation of a person's plan choices into the pipeline's
// options (issue #29 item 4): the CLI and the studio both fill
// PlanChoices, and every choice reaches Options.
#include "core/pipeline/plan_choices.h"

#include <gtest/gtest.h>

#include "core/sim/analytic_cost_model.h"

namespace rammer::pipeline {
namespace {

TEST(PlanChoices, EveryChoiceReachesThePipelinesOptions) {
  PlanChoices c;
  c.policy = schedule::PolicyId::GraphTurbo;
  c.device = "a100";
  c.scheduleFile = "edits.json";
  c.constraints.cutBefore.insert("conv2");
  c.batch = 4;
  c.ios.maxGroupOps = 5;
  c.ios.variant = "merge";
  c.graphturbo.order = "dfs";
  c.graphturbo.budgetBytes = 12345;
  c.attention = AttentionFusion::Unfused;
  c.epilogues = EpilogueFusion::Fused;
  c.costModel = std::make_shared<sim::AnalyticCostModel>();
  const Options o = optionsFor("m.onnx", c);
  EXPECT_EQ(o.modelPath, "m.onnx");
  EXPECT_EQ(o.policy, schedule::PolicyId::GraphTurbo);
  EXPECT_EQ(o.device, "a100");
  EXPECT_EQ(o.scheduleEditsFile, "edits.json");
  EXPECT_EQ(o.constraints.cutBefore, std::set<std::string>{"conv2"});
  EXPECT_EQ(o.import.batch, 4);
  EXPECT_EQ(o.ios.maxGroupOps, 5);
  EXPECT_EQ(o.ios.variant, "merge");
  EXPECT_EQ(o.graphturbo.order, "dfs");
  EXPECT_EQ(o.graphturbo.budgetBytes, 12345);
  EXPECT_EQ(o.attention, AttentionFusion::Unfused);
  EXPECT_EQ(o.epilogues, EpilogueFusion::Fused);
  EXPECT_EQ(o.costModel, c.costModel);
  // No batch given: the paper's batch of 1.
  EXPECT_EQ(optionsFor("m.onnx", PlanChoices{}).import.batch, 1);
}

// The default policy is the registry's, written once (issue #44 item 6);
// epilogue fusion follows the registry's trait under a name or an alias.
TEST(PlanChoices, ThePolicyDefaultAndTraitsComeFromTheRegistry) {
  EXPECT_EQ(PlanChoices{}.policy, schedule::kDefaultPolicy);
  EXPECT_EQ(Options{}.policy, schedule::kDefaultPolicy);
  EXPECT_TRUE(fusesEpilogues(EpilogueFusion::Auto, schedule::PolicyId::Wavefront));
  EXPECT_TRUE(fusesEpilogues(EpilogueFusion::Auto, schedule::PolicyId::Sequential));
  EXPECT_FALSE(fusesEpilogues(EpilogueFusion::Auto, schedule::PolicyId::GraphTurbo));
  EXPECT_FALSE(fusesEpilogues(EpilogueFusion::Auto, schedule::PolicyId::Ios));
  EXPECT_TRUE(fusesEpilogues(EpilogueFusion::Fused, schedule::PolicyId::Ios));
  // A typed name: aliases and any case name the same policy; others are
  // refused with the list.
  EXPECT_EQ(schedule::parsePolicy("Rammer").value(), schedule::PolicyId::Wavefront);
  EXPECT_EQ(schedule::parsePolicy("GraphTurbo").value(), schedule::PolicyId::GraphTurbo);
  const auto unknown = schedule::parsePolicy("fastest");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.errorText().find("unknown policy 'fastest'; policies: sequential, wavefront"), std::string::npos)
      << unknown.errorText();
}

}  // namespace
}  // namespace rammer::pipeline
