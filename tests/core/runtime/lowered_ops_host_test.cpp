// The ops the passes lower into others (issue #30 item 3) as generated
// code: InstanceNormalization, ConvTranspose (strided, grouped, with
// output_padding), ReduceLogSumExp, LpPool, GlobalLpPool, LRN, Hardmax
// and an attention-style Einsum in one graph,
// run on the CPU emulator and on the host target, each output checked by
// the Run stage against the reference executor on the imported graph.
#include <gtest/gtest.h>

#include <cmath>

#include "core/pipeline/pipeline.h"
#include "tests/support/graph_builder.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

namespace rt = rammer::testing;

ir::Tensor ramp(ir::Shape shape, float step) {
  ir::Tensor t(ir::DType::Float32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = std::sin(step * static_cast<float>(i));
  return t;
}

ir::Graph everyLoweredOp() {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {2, 4, 6, 5});
  b.output(
      b.op("InstanceNormalization", "inorm", {x, b.constant("s", ramp({4}, 0.9f)), b.constant("c", ramp({4}, 0.4f))}));
  b.output(b.op("ConvTranspose", "deconv",
                {x, b.constant("w", ramp({4, 3, 3, 2}, 0.3f)), b.constant("bias", ramp({6}, 1.1f))},
                rt::attrs({{"group", int64_t{2}},
                           {"strides", std::vector<int64_t>{2, 3}},
                           {"pads", std::vector<int64_t>{1, 0, 0, 1}},
                           {"output_padding", std::vector<int64_t>{1, 2}}})));
  b.output(
      b.op("ReduceLogSumExp", "lse", {x}, rt::attrs({{"axes", std::vector<int64_t>{1, 3}}, {"keepdims", int64_t{0}}})));
  b.output(b.op("LpPool", "lp", {x},
                rt::attrs({{"p", int64_t{2}},
                           {"kernel_shape", std::vector<int64_t>{3, 3}},
                           {"pads", std::vector<int64_t>{1, 1, 1, 1}}})));
  b.output(b.op("GlobalLpPool", "glp", {x}, rt::attrs({{"p", int64_t{3}}})));
  b.output(b.op("LRN", "lrn", {x}, rt::attrs({{"size", int64_t{3}}, {"alpha", 0.2f}, {"beta", 0.7f}})));
  b.output(b.op("Hardmax", "hm", {x}, rt::attrs({{"axis", int64_t{2}}})));
  b.output(b.op("Einsum", "scores", {x, b.constant("keys", ramp({2, 4, 3, 5}, 0.7f))},
                rt::attrs({{"equation", std::string("bhqd,bhkd->bhqk")}})));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

TEST(LoweredOps, RunAsGeneratedCodeAndMatchTheReference) {
  for (pipeline::RunTarget target : {pipeline::RunTarget::Emulator, pipeline::RunTarget::Host}) {
    const pipeline::StagesResult r = rt::runPipelineOn(everyLoweredOp(), target);
    ASSERT_TRUE(r.report.ok()) << ir::formatDiagnostics(r.report.diagnostics);
    for (const auto& op : r.artifacts.plan->ops)
      for (const char* lowered : {"InstanceNormalization", "ConvTranspose", "ReduceLogSumExp", "LpPool",
                                  "GlobalLpPool", "LRN", "Hardmax", "Einsum"})
        EXPECT_NE(op.opType, lowered);
    ASSERT_TRUE(r.artifacts.run && r.artifacts.run->check);
    EXPECT_TRUE(r.artifacts.run->check->match) << "max |diff| " << r.artifacts.run->check->maxAbsDiff;
    EXPECT_EQ(r.artifacts.run->check->outputs.size(), 8u);
  }
}

}  // namespace
}  // namespace rammer::runtime
