// summarize() on hand-built graphs with a private registry, so the expected
// FLOPs and categories follow from the test alone (not from the op library).
#include "core/ops/model_summary.h"

#include <gtest/gtest.h>

namespace rammer::ops {
namespace {

ir::TensorType f32(ir::Shape s) { return ir::TensorType{ir::DType::Float32, std::move(s), true}; }

OpRegistry testRegistry() {
  OpRegistry r;
  OpDef matmul;
  matmul.type = "MatMul";
  matmul.category = OpCategory::MatMul;
  // 2 * M * K * N from the first input [M, K] and the output [M, N].
  matmul.flops = [](const OpContext& ctx, std::span<const ir::TensorType> outs) {
    return 2.0 * static_cast<double>(ctx.shape(0)[1]) * static_cast<double>(ir::numElements(outs[0].shape));
  };
  r.add(matmul);
  OpDef relu;
  relu.type = "Relu";
  relu.category = OpCategory::Activation;
  relu.flops = [](const OpContext&, std::span<const ir::TensorType> outs) {
    return static_cast<double>(ir::numElements(outs[0].shape));
  };
  r.add(relu);
  OpDef reshape;  // no flops function: counts as 0
  reshape.type = "Reshape";
  reshape.category = OpCategory::DataMovement;
  r.add(reshape);
  return r;
}

// x[2,4] -> MatMul(W[4,3]) -> Relu -> Relu -> Reshape -> out, plus an unused
// initializer, a removed node and an op the registry does not know.
struct Fixture {
  ir::Graph g;
  Fixture() {
    g.name = "tiny";
    g.opsetVersion = 13;
    ir::ValueId x = g.addValue("x", f32({2, 4}));
    g.value(x).isGraphInput = true;
    g.addInput(x);
    ir::ValueId w = g.addValue("W", f32({4, 3}));
    g.value(w).constant = ir::Tensor(ir::DType::Float32, {4, 3});
    ir::ValueId unused = g.addValue("unused", f32({100}));
    g.value(unused).constant = ir::Tensor(ir::DType::Float32, {100});
    ir::ValueId shape = g.addValue("shape", ir::TensorType{ir::DType::Int64, {1}, true});
    g.value(shape).constant = ir::Tensor::fromVector<int64_t>({1}, {6});
    ir::ValueId y = g.addValue("y", f32({2, 3}));
    ir::ValueId z = g.addValue("z", f32({2, 3}));
    ir::ValueId z2 = g.addValue("z2", f32({2, 3}));
    ir::ValueId out = g.addValue("out", f32({6}));
    ir::ValueId dead = g.addValue("dead", f32({2, 3}));
    ir::ValueId odd = g.addValue("odd", f32({2, 3}));
    g.addNode(ir::Node{"mm", "MatMul", "", {x, w}, {y}, {}});
    g.addNode(ir::Node{"r1", "Relu", "", {y}, {z}, {}});
    g.addNode(ir::Node{"r2", "Relu", "", {z}, {z2}, {}});
    g.addNode(ir::Node{"rs", "Reshape", "", {z2, shape}, {out}, {}});
    ir::NodeId gone = g.addNode(ir::Node{"gone", "Relu", "", {unused}, {dead}, {}});
    g.removeNode(gone);
    g.addNode(ir::Node{"weird", "Mystery", "com.example", {z}, {odd}, {}});
    g.value(out).isGraphOutput = true;
    g.addOutput(out);
  }
};

TEST(ModelSummary, CountsNodesOpsAndInterface) {
  Fixture f;
  ModelSummary s = summarize(f.g, testRegistry());
  EXPECT_EQ(s.name, "tiny");
  EXPECT_EQ(s.opset, 13);
  EXPECT_EQ(s.nodeCount, 5u);  // the removed node is not counted
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].name, "x");
  EXPECT_EQ(s.inputs[0].type, f32({2, 4}));
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0].name, "out");

  using Counts = std::vector<std::pair<std::string, int64_t>>;
  // Most frequent first, ties by name; a foreign domain keeps its prefix.
  EXPECT_EQ(s.opHistogram, (Counts{{"Relu", 2}, {"MatMul", 1}, {"Reshape", 1}, {"com.example.Mystery", 1}}));
  EXPECT_EQ(s.categoryCounts, (Counts{{"activation", 2}, {"data-movement", 1}, {"matmul", 1}, {"unsupported", 1}}));
}

TEST(ModelSummary, ParametersAreUsedInitializers) {
  Fixture f;
  ModelSummary s = summarize(f.g, testRegistry());
  // W (12 floats) and the Reshape shape (1 int64); "unused" only fed a removed node.
  EXPECT_EQ(s.parameterCount, 12 + 1);
  EXPECT_EQ(s.parameterBytes, 12 * 4 + 8);
}

TEST(ModelSummary, FlopsSumOpCountsAndReportGaps) {
  Fixture f;
  ModelSummary s = summarize(f.g, testRegistry());
  // MatMul 2*4*(2*3) = 48, two Relus 6 each, Reshape 0; Mystery unknown.
  EXPECT_DOUBLE_EQ(s.flops, 48 + 6 + 6);
  EXPECT_EQ(s.flopsUnknownNodes, 1u);
}

TEST(ModelSummary, UnknownShapesAreLeftOutOfFlops) {
  Fixture f;
  f.g.value(*f.g.findValue("z2")).type = f32({ir::kUnknownDim, 3});
  ModelSummary s = summarize(f.g, testRegistry());
  // r2 (unknown output) is not counted, Mystery neither; rs has no FLOPs
  // function, so it costs 0 whatever its shapes.
  EXPECT_DOUBLE_EQ(s.flops, 48 + 6);
  EXPECT_EQ(s.flopsUnknownNodes, 2u);
}

TEST(ModelSummary, HumanUnits) {
  EXPECT_EQ(formatFlops(1.82e9), "1.82 GFLOP");
  EXPECT_EQ(formatFlops(3.6364e9), "3.64 GFLOP");
  EXPECT_EQ(formatFlops(512), "512 FLOP");
  EXPECT_EQ(formatFlops(0), "0 FLOP");
  EXPECT_EQ(formatFlops(12.5e12), "12.5 TFLOP");
  EXPECT_EQ(formatBytes(46'827'520), "46.8 MB");
  EXPECT_EQ(formatBytes(999), "999 B");
  EXPECT_EQ(formatBytes(999'999), "1.00 MB");  // rounding does not print "1000 KB"
  EXPECT_EQ(formatCount(11'689'512), "11.7 M");
  EXPECT_EQ(formatCount(950), "950");
  EXPECT_EQ(formatCount(123'456), "123 K");
}

}  // namespace
}  // namespace rammer::ops
