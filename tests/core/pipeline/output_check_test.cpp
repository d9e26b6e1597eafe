// One output check for every backend (issue #29 item 2): the rule's edges,
// and each backend (the CPU emulator, the generated code on the CPU, the
// GPU runner on the stand-in driver) fed an output that the reference run
// of the "imported" graph disagrees with, reported in the same words.
#include "core/pipeline/output_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/pipeline/run_stage.h"
#include "core/runtime/nvrtc_compiler.h"
#include "core/runtime/shared_library.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/core/runtime/fake_driver/fake_cuda.h"
#include "tests/support/graph_builder.h"

namespace rammer::pipeline {
namespace {

ir::Graph oneOutput(const std::string& name, const std::vector<float>& values) {
  testing::GraphBuilder b;
  b.output(b.op("Identity", name, {b.input("X", {static_cast<int64_t>(values.size())})}));
  return b.graph();
}

ir::Tensor vec(const std::vector<float>& v) { return ir::Tensor::fromVector<float>({static_cast<int64_t>(v.size())}, v); }

TEST(OutputCheck, TheToleranceFollowsTheOutputsScaleAndEachElement) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const ir::Graph g = oneOutput("y", {0, 0, 0, 0});
  // Near zero in an output of scale 1000: 1e-5 x 1000 = 1e-2 of slack.
  EXPECT_TRUE(compareOutputs(g, {vec({0.009f, 1000, nan, inf})}, {vec({0, 1000, nan, inf})}).match);
  EXPECT_FALSE(compareOutputs(g, {vec({0.011f, 1000, nan, inf})}, {vec({0, 1000, nan, inf})}).match);
  // In an output of scale <= 1 the absolute term is 1e-5.
  EXPECT_TRUE(compareOutputs(g, {vec({0.5f + 4e-5f, 0, 0, 0})}, {vec({0.5f, 0, 0, 0})}).match);
  EXPECT_FALSE(compareOutputs(g, {vec({0.5f + 8e-5f, 0, 0, 0})}, {vec({0.5f, 0, 0, 0})}).match);
  // Relative: 1e-4 of a large element.
  EXPECT_TRUE(compareOutputs(g, {vec({1000.05f, 0, 0, 0})}, {vec({1000, 0, 0, 0})}).match);
  EXPECT_FALSE(compareOutputs(g, {vec({1000.2f, 0, 0, 0})}, {vec({1000, 0, 0, 0})}).match);
  // NaN where the reference has a number, or the other infinity: mismatches.
  const OutputCheck c = compareOutputs(g, {vec({nan, -inf, 0, 0})}, {vec({1, inf, 0, 0})});
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].mismatched, 2);
  EXPECT_TRUE(std::isinf(c.maxAbsDiff));
  // A different element count is named, not compared.
  const OutputCheck shape = compareOutputs(g, {vec({1, 2, 3})}, {vec({1, 2, 3, 4})});
  EXPECT_FALSE(shape.match);
  EXPECT_EQ(mismatchMessage(shape.outputs[0]), "output 'y' has a different shape or dtype than the reference's");
  // Integer and bool outputs must match exactly; a missing output fails.
  const ir::Tensor ints = ir::Tensor::fromVector<int64_t>({2}, {1, 2});
  const OutputCheck off = compareOutputs(g, {ints}, {ir::Tensor::fromVector<int64_t>({2}, {1, 3})});
  EXPECT_TRUE(off.outputs[0].compared);
  EXPECT_FALSE(off.match);
  EXPECT_EQ(off.outputs[0].mismatched, 1);
  EXPECT_TRUE(compareOutputs(g, {ints}, {ints}).match);
  const ir::Tensor mask = ir::Tensor::fromVector<bool>({2}, {true, false});
  EXPECT_FALSE(compareOutputs(g, {mask}, {ir::Tensor::fromVector<bool>({2}, {true, true})}).match);
  EXPECT_FALSE(compareOutputs(g, {}, {vec({1})}).match);
}

// Planned: Y = Relu(X). "Imported": Y = Relu(X) + 1. With X < 0 every
// backend computes zeros where the reference has ones.
ir::Graph reluGraph(bool plusOne) {
  testing::GraphBuilder b;
  ir::ValueId y = b.op("Relu", plusOne ? "r" : "Y", {b.input("X", {4, 16})});
  if (plusOne) y = b.op("Add", "Y", {y, b.constant("one", vec({1.0f}))});
  b.output(y);
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

constexpr const char* kExpected =
    "output 'Y' differs from the reference in 64 of 64 elements (max |diff| 1, 1.00e+00 of its largest value; rule "
    "|diff| <= 1e-05 x max(1, max|ref|) + 1e-04 x |ref|)";

// The message the Run stage gave, and its check.
std::pair<std::string, OutputCheck> runWrong(RunTarget target, const runtime::ProbeOptions& libraries = {}) {
  const ir::Graph imported = reluGraph(true);
  ir::Graph planned = reluGraph(false);
  passes::PassContext ctx;
  EXPECT_TRUE(passes::standardPipeline().run(planned, ctx).ok());  // Relu as a fused element-wise rOperator
  const schedule::Plan plan = testing::planSample(planned, "wavefront");
  RunOptions o;
  o.target = target;
  o.libraries = libraries;
  o.inputs = {ir::Tensor::fromVector<float>({4, 16}, std::vector<float>(64, -1.0f))};
  o.host.repeat = 1;
  o.gpu.run.warmup = 0;
  o.gpu.run.repeat = 1;
  o.gpu.measureTrace = false;
  std::vector<std::string> warnings;
  StageContext c;
  c.diagnose = [&](ir::Diagnostic d) {
    if (d.severity == ir::Severity::Warning) warnings.push_back(d.message);
  };
  auto run = runPlan(plan, planned, imported, o, c);
  EXPECT_TRUE(run.ok()) << run.errorText();
  if (!run || !run->check) return {};
  EXPECT_EQ(warnings.size(), 1u);
  return {warnings.empty() ? std::string() : warnings.front(), *run->check};
}

void expectTheOneReport(const std::pair<std::string, OutputCheck>& got) {
  EXPECT_EQ(got.first, kExpected);
  EXPECT_FALSE(got.second.match);
  ASSERT_EQ(got.second.outputs.size(), 1u);
  EXPECT_EQ(mismatchMessage(got.second.outputs[0]), kExpected);
}

TEST(OutputCheckRunStage, TheEmulatorsWrongOutputIsReportedInTheOneRulesWords) {
  expectTheOneReport(runWrong(RunTarget::Emulator));
}

TEST(OutputCheckRunStage, TheGeneratedCodesWrongOutputIsReportedTheSameWay) {
  expectTheOneReport(runWrong(RunTarget::Host));
}

#ifdef RAMMER_FAKE_CUDA
// The stand-in driver runs no kernel: the outputs are the 0xA5 bytes its
// memory starts with (-2.9e-16), as wrong as the CPU backends' zeros.
TEST(OutputCheckRunStage, TheGpusWrongOutputIsReportedTheSameWay) {
  if (!runtime::NvrtcCompiler::load().ok()) GTEST_SKIP() << "needs NVRTC";
  auto lib = runtime::SharedLibrary::open({RAMMER_FAKE_CUDA});
  ASSERT_TRUE(lib.ok()) << lib.errorText();
  auto hooks = reinterpret_cast<const FakeCudaHooks* (*)()>((*lib)->find("fake_cuda_hooks"))();
  hooks->reset(1, 132, 32);  // H100-sized: the plan is for the H100 preset
  hooks->registerKernel("*", [](int, int, void**) {}, 0);
  runtime::ProbeOptions libraries;
  libraries.driverLibrary = RAMMER_FAKE_CUDA;
  expectTheOneReport(runWrong(RunTarget::Gpu, libraries));
}
#endif

}  // namespace
}  // namespace rammer::pipeline
