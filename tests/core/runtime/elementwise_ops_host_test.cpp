// Every element-wise ONNX op the element-wise fusion takes (issue #30 item
// 1), in one graph: unary math, activations with their attributes, binary
// ops in several broadcast forms, the variadic ones. The pipeline fuses
// them all into FusedElementwise rKernels, runs them on the emulator (the
// reference's elements) and as generated code on the host target, and the Run stage's
// output check holds them to the reference; the same plan's CUDA compiles
// with NVRTC.
#include <gtest/gtest.h>

#include <set>

#include "core/pipeline/generate_stage.h"
#include "core/pipeline/pipeline.h"
#include "tests/support/elementwise_graph.h"
#include "tests/support/host_run.h"
#include "tests/support/nvrtc_pipeline.h"

namespace rammer::runtime {
namespace {

namespace rt = rammer::testing;

TEST(FusedElementwiseOps, EveryOneFusesAndMatchesTheReferenceOnTheEmulatorAndTheHost) {
  for (pipeline::RunTarget target : {pipeline::RunTarget::Emulator, pipeline::RunTarget::Host}) {
    const pipeline::StagesResult r = rt::runPipelineOn(rt::everyElementwiseOp(), target);
    ASSERT_TRUE(r.report.ok()) << ir::formatDiagnostics(r.report.diagnostics);
    std::set<std::string> planned;
    for (const auto& op : r.artifacts.plan->ops) planned.insert(op.opType);
    EXPECT_EQ(planned, (std::set<std::string>{"FusedElementwise"})) << "an op was left out of the fusion";
    ASSERT_TRUE(r.artifacts.run && r.artifacts.run->check);
    EXPECT_TRUE(r.artifacts.run->check->match) << "max |diff| " << r.artifacts.run->check->maxAbsDiff;
    EXPECT_EQ(r.artifacts.run->check->outputs.size(), r.artifacts.original->outputs().size());
  }
}

TEST(FusedElementwiseOps, TheirCudaCompilesWithNvrtc) { rt::expectCudaCompilesWithNvrtc(rt::everyElementwiseOp()); }

}  // namespace
}  // namespace rammer::runtime
