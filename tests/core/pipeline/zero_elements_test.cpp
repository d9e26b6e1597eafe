// Tensors with a zero dimension (legal in ONNX) hold nothing to compute:
// every operator whose outputs are empty gets one rTask that does nothing,
// whatever its op, and the plan runs (issue #18 item 4). The copy, norm
// and softmax families used to refuse such operators.
#include <gtest/gtest.h>

#include "core/kernels/kernel_library.h"
#include "core/pipeline/pipeline.h"
#include "tests/support/graph_builder.h"

namespace rammer::pipeline {
namespace {

ir::Graph zeroGraph() {
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {0, 100000, 1000});
  const ir::ValueId t = b.op("Transpose", "t", {b.op("Relu", "r", {x})}, testing::attrs({{"perm", std::vector<int64_t>{0, 2, 1}}}));
  b.output(b.op("Softmax", "s", {t}, testing::attrs({{"axis", int64_t{-1}}})));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

TEST(ZeroElements, EveryEmptyOperatorIsOneRTaskThatDoesNothing) {
  const ir::Graph g = zeroGraph();
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    auto k = kernels::kernelsFor(g, static_cast<ir::NodeId>(i));
    ASSERT_TRUE(k.ok()) << k.errorText();
    ASSERT_EQ(k->candidates.size(), 1u);
    EXPECT_EQ(k->candidates[0].name, "empty");
    EXPECT_EQ(k->candidates[0].numRTasks, 1);
    EXPECT_EQ(k->candidates[0].bytes, 0);
  }
}

TEST(ZeroElements, PlansAndRunsOnTheEmulatorWithEveryPolicy) {
  for (const char* policy : {"sequential", "wavefront", "greedy", "ios", "graphturbo"}) {
    SCOPED_TRACE(policy);
    Options o;
    o.policy = schedule::parsePolicy(policy).value();
    o.run.target = RunTarget::Emulator;
    Artifacts given;
    given.original = std::make_shared<const ir::Graph>(zeroGraph());
    const StagesResult r = runStages(o, given, Stage::Optimize, Stage::Run);
    ASSERT_TRUE(r.report.ok()) << ir::formatDiagnostics(r.report.diagnostics);
    ASSERT_TRUE(r.artifacts.run && r.artifacts.run->check);
    EXPECT_TRUE(r.artifacts.run->check->match);
    ASSERT_EQ(r.artifacts.run->outputs.size(), 1u);
    EXPECT_EQ(r.artifacts.run->outputs[0].numel(), 0);
    EXPECT_EQ(r.artifacts.run->outputs[0].shape(), (ir::Shape{0, 1000, 100000}));
  }
}

}  // namespace
}  // namespace rammer::pipeline
