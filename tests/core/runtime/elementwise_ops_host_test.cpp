// Every element-wise ONNX op the element-wise fusion takes (issue #30 item
// 1), in one graph: unary math, activations with their attributes, binary
// ops in several broadcast forms, the variadic ones. The pipeline fuses
// them all into FusedElementwise rKernels, runs them on the CPU tiles (the
// emulator) and as generated code on the host target, and the Run stage's
// output check holds them to the reference; the same plan's CUDA compiles
// with NVRTC.
#include <gtest/gtest.h>

#include <set>

#include "core/codegen/project_export.h"
#include "core/pipeline/generate_stage.h"
#include "core/pipeline/pipeline.h"
#include "core/runtime/nvrtc_compiler.h"
#include "core/runtime/program_compiler.h"
#include "tests/support/graph_builder.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

namespace rt = rammer::testing;

ir::Tensor scalar(float v) { return ir::Tensor::fromVector<float>({1}, {v}); }

// x, y in [-1, 1] (seeded random inputs); p = |x| + 1.25 >= 1.25 for the
// ops defined above 1 (log, sqrt, acosh, ...); q = 0.9 tanh(x) in (-1, 1)
// for asin, acos, atanh.
ir::Graph everyElementwiseOp() {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {4, 37}), y = b.input("y", {37}), z = b.input("z", {4, 1});
  const ir::ValueId p = b.op("Add", "p", {b.op("Abs", "abs_x", {x}), b.constant("c125", scalar(1.25f))});
  const ir::ValueId q = b.op("Mul", "q", {b.op("Tanh", "tanh_x", {x}), b.constant("c09", scalar(0.9f))});
  auto out = [&b](const std::string& op, std::vector<ir::ValueId> in, ir::Attributes a = {}) {
    b.output(b.op(op, "y_" + op + std::to_string(b.graph().numNodeSlots()), std::move(in), std::move(a)));
  };
  for (const char* op : {"Neg", "Abs", "Exp", "Floor", "Ceil", "Erf", "Sin", "Cos", "Sign", "Relu", "Sigmoid",
                         "Tanh", "Softplus", "Softsign", "HardSwish", "Tan", "Atan", "Sinh", "Cosh", "Asinh", "Round"})
    out(op, {x});
  for (const char* op : {"Sqrt", "Log", "Reciprocal", "Acosh"}) out(op, {p});
  for (const char* op : {"Asin", "Acos", "Atanh"}) out(op, {q});
  out("LeakyRelu", {x}, rt::attrs({{"alpha", 0.3f}}));
  out("Elu", {x}, rt::attrs({{"alpha", 0.8f}}));
  out("Celu", {x}, rt::attrs({{"alpha", 0.7f}}));
  out("Selu", {x});
  out("HardSigmoid", {x}, rt::attrs({{"alpha", 0.4f}, {"beta", 0.3f}}));
  out("ThresholdedRelu", {x}, rt::attrs({{"alpha", 0.2f}}));
  out("Shrink", {x}, rt::attrs({{"lambd", 0.3f}, {"bias", 0.1f}}));
  out("Clip", {x, b.constant("lo", scalar(-0.5f)), b.constant("hi", scalar(0.6f))});
  // Binary ops: the same shape, a trailing vector, a column, a scalar.
  for (const char* op : {"Add", "Sub", "Mul", "Max", "Min"}) {
    out(op, {x, x});
    out(op, {x, y});
    out(op, {z, x});
  }
  out("Mod", {x, b.constant("c03", scalar(0.3f))}, rt::attrs({{"fmod", int64_t{1}}}));
  out("Mod", {y, p}, rt::attrs({{"fmod", int64_t{1}}}));
  out("Div", {x, p});
  out("Div", {y, p});
  out("Pow", {p, x});
  out("Pow", {p, b.constant("two", scalar(2.0f))});
  out("PRelu", {x, y});
  out("PRelu", {x, b.constant("slope", scalar(0.25f))});
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) out(op, {x, y, z});
  // Where with a constant condition (a causal mask folded at import).
  ir::Tensor causal(ir::DType::Bool, {4, 37});
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 37; ++c) causal.data<bool>()[r * 37 + c] = c <= r * 9;
  out("Where", {b.constant("causal", std::move(causal)), x, b.constant("masked", scalar(-1e9f))});
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

TEST(FusedElementwiseOps, EveryOneFusesAndMatchesTheReferenceOnTheEmulatorAndTheHost) {
  for (pipeline::RunTarget target : {pipeline::RunTarget::Emulator, pipeline::RunTarget::Host}) {
    const pipeline::StagesResult r = rt::runPipelineOn(everyElementwiseOp(), target);
    ASSERT_TRUE(r.report.ok()) << ir::formatDiagnostics(r.report.diagnostics);
    std::set<std::string> planned;
    for (const auto& op : r.artifacts.plan->ops) planned.insert(op.opType);
    EXPECT_EQ(planned, (std::set<std::string>{"FusedElementwise"})) << "an op was left out of the fusion";
    ASSERT_TRUE(r.artifacts.run && r.artifacts.run->check);
    EXPECT_TRUE(r.artifacts.run->check->match) << "max |diff| " << r.artifacts.run->check->maxAbsDiff;
    EXPECT_EQ(r.artifacts.run->check->outputs.size(), r.artifacts.original->outputs().size());
  }
}

TEST(FusedElementwiseOps, TheirCudaCompilesWithNvrtc) {
  auto nvrtc = NvrtcCompiler::load();
  if (!nvrtc) GTEST_SKIP() << "skipped: no NVRTC";
  pipeline::Options o;
  o.generate.target = codegen::Target::Cuda;
  pipeline::Artifacts given;
  given.original = std::make_shared<const ir::Graph>(everyElementwiseOp());
  const pipeline::StagesResult r =
      pipeline::runStages(o, std::move(given), pipeline::Stage::Optimize, pipeline::Stage::Generate);
  ASSERT_TRUE(r.report.ok()) << ir::formatDiagnostics(r.report.diagnostics);
  auto compiled = compileProgram(**nvrtc, *r.artifacts.generated, cudaArch(r.artifacts.plan->device));
  ASSERT_TRUE(compiled.ok()) << compiled.errorText();
  EXPECT_EQ(compiled->kernels.size(), codegen::distinctKernels(*r.artifacts.generated).size());
}

}  // namespace
}  // namespace rammer::runtime
