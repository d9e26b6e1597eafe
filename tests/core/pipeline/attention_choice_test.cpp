// --fuse-attention=auto (issue #16 item 3, "chosen by the policy when it
// wins"): the Schedule stage plans the model with attention fused and
// unfused and keeps the plan the cost model predicts faster.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "core/passes/pass_manager.h"
#include "core/pipeline/pipeline.h"
#include "core/sim/plan_figures.h"
#include "samples/zoo/sample_catalog.h"

namespace rammer::pipeline {
namespace {

std::string tinyEncoder() { return RAMMER_SOURCE_DIR "/tests/data/transformers/encoder/model.onnx"; }

// One full-width BERT-base layer, as the Import stage would leave it.
std::shared_ptr<const ir::Graph> bertLayer() {
  const auto catalog = samples::sampleCatalog();
  samples::SampleConfig config;
  config.transformerLayers = 1;
  return std::make_shared<const ir::Graph>(samples::findSample(catalog, "bert_base")->build(config));
}

bool hasAttentionOp(const ir::Graph& g) { return passes::opHistogram(g).count("Attention") > 0; }

struct Planned {
  Artifacts artifacts;
  Report report;
};

// Runs Optimize..Simulate on `original` (or Import first from the file).
Planned plan(const std::string& file, std::shared_ptr<const ir::Graph> original, const std::string& policy,
             AttentionFusion mode, const schedule::Constraints& constraints = {}) {
  Options o;
  o.modelPath = file;
  o.import.batch = 1;
  o.policy = schedule::parsePolicy(policy).value();
  o.attention = mode;
  o.constraints = constraints;
  o.launchFallback = false;  // the plans weighed are the final ones
  Pipeline p(o);
  p.artifacts().original = std::move(original);
  Report r = p.run(p.artifacts().original ? Stage::Optimize : Stage::Import, Stage::Simulate);
  return {p.artifacts(), std::move(r)};
}

double predictedUs(const Artifacts& a) { return sim::figuresOf(*a.plan, a.predicted.get()).predictedUs; }

TEST(AttentionChoice, AutoKeepsThePlanPredictedFaster) {
  struct Case {
    const char* label;
    std::string file;
    std::shared_ptr<const ir::Graph> original;
  };
  const std::vector<Case> cases = {{"tiny encoder export", tinyEncoder(), nullptr}, {"BERT-base layer", "", bertLayer()}};
  int fused = 0, unfused = 0;
  for (const Case& c : cases)
    for (const char* policy : {"wavefront", "sequential"}) {
      SCOPED_TRACE(std::string(c.label) + ", " + policy);
      const Planned autoPlan = plan(c.file, c.original, policy, AttentionFusion::Auto);
      const Planned fusedPlan = plan(c.file, c.original, policy, AttentionFusion::Fused);
      const Planned unfusedPlan = plan(c.file, c.original, policy, AttentionFusion::Unfused);
      for (const Planned* p : {&autoPlan, &fusedPlan, &unfusedPlan})
        ASSERT_TRUE(p->report.ok()) << ir::formatDiagnostics(p->report.diagnostics);
      EXPECT_TRUE(hasAttentionOp(*fusedPlan.artifacts.planGraph()));
      EXPECT_FALSE(hasAttentionOp(*unfusedPlan.artifacts.planGraph()));
      EXPECT_FALSE(fusedPlan.artifacts.attention || unfusedPlan.artifacts.attention) << "only Auto weighs both";

      ASSERT_TRUE(autoPlan.artifacts.optimizedFused);
      ASSERT_TRUE(autoPlan.artifacts.attention);
      const AttentionDecision& d = *autoPlan.artifacts.attention;
      // Auto weighed the same plans the forced modes make.
      EXPECT_NEAR(d.fusedUs, predictedUs(fusedPlan.artifacts), 1e-6 * d.fusedUs);
      EXPECT_NEAR(d.unfusedUs, predictedUs(unfusedPlan.artifacts), 1e-6 * d.unfusedUs);
      EXPECT_EQ(d.fused, d.fusedUs < d.unfusedUs);
      EXPECT_NEAR(predictedUs(autoPlan.artifacts), std::min(d.fusedUs, d.unfusedUs), 1e-6 * d.unfusedUs);
      EXPECT_EQ(hasAttentionOp(*autoPlan.artifacts.planGraph()), d.fused);
      // The optimized graph stays the unfused one; a fused plan carries its own.
      EXPECT_FALSE(hasAttentionOp(*autoPlan.artifacts.optimized));
      EXPECT_EQ(autoPlan.artifacts.plan->graph == autoPlan.artifacts.optimizedFused, d.fused);
      const auto& log = autoPlan.report.log;
      EXPECT_TRUE(std::any_of(log.begin(), log.end(), [&](const std::string& l) {
        return l.rfind(d.fused ? "attention fused: predicted" : "attention left unfused: predicted", 0) == 0;
      }));
      (d.fused ? fused : unfused)++;
    }
  // Both answers occur: the small export's attention is cheaper fused, the
  // full-width layer's flash rKernels cost more vEUs than they save.
  EXPECT_GT(fused, 0);
  EXPECT_GT(unfused, 0);
}

TEST(AttentionChoice, AFusedPlanRunsOnTheEmulatorAndMatchesTheReference) {
  Options o;
  o.modelPath = tinyEncoder();
  o.import.batch = 1;
  o.run.target = RunTarget::Emulator;
  o.attention = AttentionFusion::Fused;  // whichever Auto would pick on the device
  Pipeline p(o);
  const Report r = p.run(Stage::Import, Stage::Run);
  ASSERT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  ASSERT_TRUE(hasAttentionOp(*p.artifacts().planGraph()));
  ASSERT_TRUE(p.artifacts().run && p.artifacts().run->check);
  EXPECT_TRUE(p.artifacts().run->check->match) << p.artifacts().run->check->maxAbsDiff;
}

TEST(AttentionChoice, ModelsWithoutAttentionArePlannedOnce) {
  const Planned p =
      plan(RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx", nullptr, "wavefront", AttentionFusion::Auto);
  ASSERT_TRUE(p.report.ok()) << ir::formatDiagnostics(p.report.diagnostics);
  EXPECT_FALSE(p.artifacts.optimizedFused);
  EXPECT_FALSE(p.artifacts.attention);
  EXPECT_FALSE(p.artifacts.plan->graph);
}

// The kernel of the last `opType` operator of `p`'s plan, pinned.
schedule::Constraints pinLast(const Planned& p, const std::string& opType) {
  schedule::Constraints edits;
  for (const schedule::PlannedOp& op : p.artifacts.plan->ops)
    if (op.opType == opType) edits.kernelFor = {{op.name, op.kernel.name}};
  return edits;
}

// Edits name the operators of the graph they were made on: Auto plans
// that graph and weighs nothing.
TEST(AttentionChoice, ScheduleEditsChooseTheGraphTheyName) {
  const Planned unfused = plan(tinyEncoder(), nullptr, "wavefront", AttentionFusion::Unfused);
  const Planned fused = plan(tinyEncoder(), nullptr, "wavefront", AttentionFusion::Fused);
  ASSERT_TRUE(unfused.report.ok() && fused.report.ok());
  for (const bool onFused : {false, true}) {
    SCOPED_TRACE(onFused ? "an Attention rKernel pinned" : "a MatMul rKernel pinned");
    const schedule::Constraints edits = onFused ? pinLast(fused, "Attention") : pinLast(unfused, "MatMul");
    ASSERT_FALSE(edits.empty());
    const Planned p = plan(tinyEncoder(), nullptr, "wavefront", AttentionFusion::Auto, edits);
    ASSERT_TRUE(p.report.ok()) << ir::formatDiagnostics(p.report.diagnostics);
    EXPECT_FALSE(p.artifacts.attention);
    EXPECT_EQ(hasAttentionOp(*p.artifacts.planGraph()), onFused);
    const std::string line = onFused ? "attention fused: the schedule edits name the fused graph's operators"
                                     : "attention left unfused: the schedule edits name the unfused graph's operators";
    EXPECT_NE(std::find(p.report.log.begin(), p.report.log.end(), line), p.report.log.end());
  }
}

// Re-running from Schedule (another policy) weighs both again from the
// values the Optimize stage left.
TEST(AttentionChoice, ReschedulingReusesTheFusedGraph) {
  Options o;
  o.modelPath = tinyEncoder();
  o.import.batch = 1;
  Pipeline p(o);
  ASSERT_TRUE(p.run(Stage::Import, Stage::Simulate).ok());
  const auto fusedGraph = p.artifacts().optimizedFused;
  ASSERT_TRUE(fusedGraph);
  p.options().policy = schedule::PolicyId::Sequential;
  const Report r = p.run(Stage::Schedule, Stage::Simulate);
  ASSERT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  EXPECT_EQ(p.artifacts().optimizedFused, fusedGraph);
  ASSERT_TRUE(p.artifacts().attention);
  EXPECT_EQ(p.artifacts().plan->policy, "sequential");
}

}  // namespace
}  // namespace rammer::pipeline
