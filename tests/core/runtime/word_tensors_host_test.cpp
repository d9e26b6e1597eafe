// Integer and bool tensors at run time (issue #30 item 2) through the whole
// pipeline: token ids gathered into embeddings, masks from comparisons and
// logical ops, Where on a computed mask and the mask's Cast (both fused into
// FusedElementwise), ArgMax and integer arithmetic (tests/support/word_graph.h)
// plan under every policy, run on the emulator and as generated code on the
// host target, and match the reference exactly where the outputs are integers
// or bools; the CUDA of the same plan compiles with NVRTC.
#include <gtest/gtest.h>

#include <set>

#include "core/pipeline/pipeline.h"
#include "core/schedule/policy.h"
#include "tests/support/host_run.h"
#include "tests/support/nvrtc_pipeline.h"
#include "tests/support/word_graph.h"

namespace rammer::runtime {
namespace {

namespace rt = rammer::testing;

pipeline::StagesResult runWith(const std::string& policy, pipeline::RunTarget target) {
  pipeline::Options o;
  o.policy = schedule::parsePolicy(policy).value();
  o.run.target = target;
  o.run.host = rt::hostTestOptions();
  o.run.host.measureTrace = false;
  pipeline::Artifacts given;
  given.original = std::make_shared<const ir::Graph>(rt::tokenMaskGraph());
  return pipeline::runStages(o, std::move(given), pipeline::Stage::Optimize, pipeline::Stage::Run);
}

void expectMatch(const pipeline::StagesResult& r, const std::string& label) {
  ASSERT_TRUE(r.report.ok()) << label << ": " << ir::formatDiagnostics(r.report.diagnostics);
  ASSERT_TRUE(r.artifacts.run && r.artifacts.run->check) << label;
  const pipeline::OutputCheck& c = *r.artifacts.run->check;
  EXPECT_TRUE(c.match) << label << ": max |diff| " << c.maxAbsDiff;
  ASSERT_EQ(c.outputs.size(), 7u) << label;
  for (const pipeline::OutputComparison& o : c.outputs) EXPECT_TRUE(o.compared) << label << ": " << o.name;
}

TEST(WordTensors, TokenIdsAndMasksPlanUnderEveryPolicyAndMatchOnTheEmulator) {
  for (const std::string& policy : schedule::policyNames()) {
    const pipeline::StagesResult r = runWith(policy, pipeline::RunTarget::Emulator);
    expectMatch(r, policy);
    if (!r.report.ok()) continue;
    std::set<std::string> planned;
    for (const auto& op : r.artifacts.plan->ops) planned.insert(op.opType);
    for (const char* op : {"Gather", "Equal", "ArgMax", "Mod"})
      EXPECT_TRUE(planned.count(op)) << policy << " plans no " << op;
    // Where, Cast, Not, And and the float Greater join the element-wise
    // fusion: a mask's words read by where_word and int_to_float, a mask
    // computed in the same expression as a 0/1 value, bools written by
    // bool_to_word.
    for (const char* op : {"Where", "Cast", "Not", "And", "Greater"})
      EXPECT_FALSE(planned.count(op)) << policy << " " << op;
    std::string exprs;
    for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(r.artifacts.optimized->numNodeSlots()); ++id)
      if (!r.artifacts.optimized->node(id).removed)
        exprs += r.artifacts.optimized->node(id).attrs.getString("expr", "") + " ";
    for (const char* fn :
         {"(where_word ", "(where (greater ", "(logical_not (greater ", "(logical_and ", "(bool_to_word "})
      EXPECT_NE(exprs.find(fn), std::string::npos) << fn << " in " << exprs;
    EXPECT_NE(exprs.find("int_to_float"), std::string::npos) << exprs;
  }
}

TEST(WordTensors, TokenIdsAndMasksMatchAsGeneratedCodeOnTheHost) {
  for (const char* policy : {"wavefront", "greedy"}) expectMatch(runWith(policy, pipeline::RunTarget::Host), policy);
}

TEST(WordTensors, TheirCudaCompilesWithNvrtc) {
  std::string source;
  rt::expectCudaCompilesWithNvrtc(rt::tokenMaskGraph(), &source);
  if (!source.empty()) EXPECT_NE(source.find("__float_as_int"), std::string::npos);
}

}  // namespace
}  // namespace rammer::runtime
