// The epilogue fusion pass (issue #27 item 3): which element-wise nodes move
// into a Conv / Gemm / MatMul epilogue, what the fused node looks like, and
// that the reference executor computes the same outputs before and after.
#include <gtest/gtest.h>

#include "core/exec/reference_executor.h"
#include "core/ops/math/fused_epilogue.h"
#include "core/passes/epilogue_fusion.h"
#include "tests/core/passes/pass_test_util.h"
#include "tests/support/epilogue_graph.h"
#include "tests/support/host_run.h"

using namespace rammer;
namespace rt = rammer::testing;
using rammer::testing::opCount;

namespace {

const ir::Node* nodeNamed(const ir::Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    const ir::Node& n = g.node(static_cast<ir::NodeId>(i));
    if (!n.removed && n.name == name) return &n;
  }
  return nullptr;
}

}  // namespace

TEST(EpilogueFusion, EachKindOfEpilogueMovesIntoItsGemm) {
  const ir::Graph plain = rt::optimizedEpilogueGraph(false);
  const ir::Graph fused = rt::optimizedEpilogueGraph(true);
  EXPECT_EQ(opCount(plain, "Conv"), 3u);
  EXPECT_EQ(opCount(fused, "Conv"), 0u);
  EXPECT_EQ(opCount(fused, "FusedConv"), 3u);
  EXPECT_EQ(opCount(fused, "FusedGemm"), 1u);
  EXPECT_EQ(opCount(fused, "FusedMatMul"), 1u);
  // mm2's bias broadcasts along the rows: it stays an element-wise node.
  EXPECT_EQ(opCount(fused, "MatMul"), 1u);
  EXPECT_EQ(opCount(fused, "FusedElementwise"), 1u);
  EXPECT_EQ(fused.numNodes() + 5, plain.numNodes());

  const ir::Node* c1 = nodeNamed(fused, "conv1");
  ASSERT_NE(c1, nullptr);
  EXPECT_EQ(c1->domain, ops::kRammerDomain);
  EXPECT_EQ(c1->attrs.getString("epilogue", ""), "(relu x0)");
  EXPECT_EQ(c1->inputs.size(), 3u);  // X, W, B: no other input
  // The Conv's name, and every original node listed (schedule edits naming relu1 find it).
  EXPECT_EQ(c1->attrs.getStrings("fused_nodes"), (std::vector<std::string>{"Conv:conv1", "Relu:relu1"}));
  const ir::Node* c2 = nodeNamed(fused, "conv2");
  ASSERT_NE(c2, nullptr);
  ASSERT_EQ(c2->inputs.size(), 4u);  // X, W, no B, the residual
  EXPECT_EQ(c2->inputs[2], ir::kNone);
  EXPECT_EQ(c2->inputs[3], c1->outputs[0]);
  EXPECT_EQ(c2->attrs.getString("epilogue", ""), "(relu (add x0 x1))");
  EXPECT_EQ(c2->attrs.getInt("group", 1), 1);
  const ir::Node* dw = nodeNamed(fused, "dw");
  ASSERT_NE(dw, nullptr);
  EXPECT_EQ(dw->attrs.getInt("group", 1), 16);  // the Conv's attributes kept
  const ir::Node* mm = nodeNamed(fused, "mm");
  ASSERT_NE(mm, nullptr);
  ASSERT_EQ(mm->inputs.size(), 3u);  // A, B, the one-element shift
  EXPECT_EQ(fused.value(mm->inputs[2]).name, "s");

  // The same numbers as the unfused graph.
  const std::vector<ir::Tensor> inputs = rt::seededInputs(plain);
  auto want = exec::runReference(plain, inputs);
  auto got = exec::runReference(fused, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  ASSERT_TRUE(got.ok()) << got.errorText();
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < want->size(); ++i) EXPECT_LE(rt::relativeL2((*got)[i], (*want)[i]), 1e-6) << i;
}

TEST(EpilogueFusion, LeavesProductsOthersReadAndGraphOutputs) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {2, 6});
  const ir::ValueId shared = b.op("MatMul", "shared", {x, b.constant("w", rt::randomTensor({6, 6}, 1))});
  b.output(b.op("Relu", "relu", {shared}));
  b.output(b.op("MatMul", "again", {shared, b.constant("w2", rt::randomTensor({6, 3}, 2))}));
  const ir::ValueId out = b.op("MatMul", "out", {x, b.constant("w3", rt::randomTensor({6, 4}, 3))});
  b.output(out);
  b.output(b.op("Sigmoid", "sig", {out}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  auto records = passes::standardPipeline({.fuseEpilogues = true}).run(b.graph(), ctx);
  ASSERT_TRUE(records.ok()) << records.errorText();
  EXPECT_EQ(opCount(b.graph(), "MatMul"), 3u);  // the product has a second reader / is a graph output
  EXPECT_EQ(opCount(b.graph(), "FusedMatMul"), 0u);
  EXPECT_FALSE(passes::EpilogueFusion().run(b.graph(), ctx).value());
}

TEST(EpilogueFusion, TheNoteNamesWhatMovedWhere) {
  ir::Graph g = rt::epilogueGraph();
  passes::PassContext ctx;
  auto records = passes::standardPipeline({.fuseEpilogues = true}).run(g, ctx);
  ASSERT_TRUE(records.ok());
  std::vector<std::string> notes;
  for (const auto& r : *records)
    if (r.pass == "epilogue-fusion") notes = r.notes;
  ASSERT_EQ(notes.size(), 5u);
  EXPECT_NE(notes[0].find("(relu x0)) into the epilogue of Conv 'conv1'"), std::string::npos) << notes[0];
  // Off by default.
  ir::Graph plain = rt::epilogueGraph();
  auto none = passes::standardPipeline().run(plain, ctx);
  ASSERT_TRUE(none.ok());
  for (const auto& r : *none) EXPECT_NE(r.pass, "epilogue-fusion");
}

// A malformed fused node is a clear type-inference error, not a crash.
TEST(EpilogueFusion, AFusedNodeWithABroadcastingInputIsRefused) {
  ir::Graph g = rt::optimizedEpilogueGraph(true);
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    ir::Node& n = g.node(static_cast<ir::NodeId>(i));
    if (n.name != "conv2") continue;
    const ir::ValueId wrong = g.addValue("wrong", {ir::DType::Float32, {16, 1, 1}, true});
    g.addInput(wrong);
    g.setNodeInput(static_cast<ir::NodeId>(i), 3, wrong);
  }
  const auto errors = ops::inferTypes(g);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors.front().message.find("must have the output's shape [1, 16, 9, 9] or one element"), std::string::npos)
      << errors.front().message;
}
