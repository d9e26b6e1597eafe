// Identity removal, constant folding, CSE and DCE on small graphs, including
// the cases each pass must leave alone.
#include <gtest/gtest.h>

#include "core/exec/reference_executor.h"
#include "core/passes/common_subexpression_elimination.h"
#include "core/passes/constant_folding.h"
#include "core/passes/dead_code_elimination.h"
#include "core/passes/identity_removal.h"
#include "core/passes/pass_manager.h"
#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::firstOutput;
using rammer::testing::GraphBuilder;
using rammer::testing::opCount;

namespace {


}  // namespace

TEST(IdentityRemoval, BypassesIdentityAndDropout) {
  GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto i = b.op("Identity", "id", {x});
  auto d = b.op("Dropout", "drop", {i});
  auto r = b.op("Relu", "relu", {d});
  b.output(r);
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_TRUE(passes::IdentityRemoval().run(b.graph(), ctx).value());
  b.graph().compact();
  EXPECT_EQ(b.graph().numNodes(), 1u);
  EXPECT_EQ(b.graph().node(0).inputs[0], *b.graph().findValue("x"));
  EXPECT_EQ(ctx.takeNotes().size(), 2u);
}

TEST(IdentityRemoval, KeepsGraphOutputNameByRetargetingProducer) {
  GraphBuilder b;
  auto x = b.input("x", {4});
  auto r = b.op("Relu", "relu", {x});
  auto out = b.op("Identity", "result", {r});
  b.output(out);
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_TRUE(passes::IdentityRemoval().run(b.graph(), ctx).value());
  b.graph().compact();
  ASSERT_EQ(b.graph().numNodes(), 1u);
  EXPECT_EQ(b.graph().value(b.graph().outputs()[0]).name, "result");
  EXPECT_EQ(b.graph().node(0).opType, "Relu");
}

TEST(IdentityRemoval, LeavesIdentityOfGraphInputThatIsAnOutput) {
  GraphBuilder b;
  auto x = b.input("x", {4});
  b.output(b.op("Identity", "copy", {x}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::IdentityRemoval().run(b.graph(), ctx).value());
  EXPECT_EQ(opCount(b.graph(), "Identity"), 1u);
}

TEST(IdentityRemoval, KeepsDropoutWhoseMaskIsRead) {
  GraphBuilder b;
  auto x = b.input("x", {4});
  auto outs = b.node("Dropout", "drop", {x}, {}, 2);
  b.output(b.op("Cast", "cast", {outs[1]}, attrs({{"to", int64_t{1}}})));
  b.output(b.op("Relu", "relu", {outs[0]}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::IdentityRemoval().run(b.graph(), ctx).value());
}

TEST(ConstantFolding, FoldsShapeSubgraphIntoReshapeConstant) {
  // x:[2,3,4] -> Shape -> Gather(0) -> Unsqueeze -> Concat([-1]) -> Reshape(x)
  GraphBuilder b;
  auto x = b.input("x", {2, 3, 4});
  auto shape = b.op("Shape", "shape", {x});
  auto idx = b.constant("zero", ir::Tensor::scalar<int64_t>(0));
  auto dim0 = b.op("Gather", "gather", {shape, idx}, attrs({{"axis", int64_t{0}}}));
  auto axes = b.constant("axes", ir::Tensor::fromVector<int64_t>({1}, {0}));
  auto un = b.op("Unsqueeze", "unsq", {dim0, axes});
  auto minus1 = b.constant("minus1", ir::Tensor::fromVector<int64_t>({1}, {-1}));
  auto target = b.op("Concat", "concat", {un, minus1}, attrs({{"axis", int64_t{0}}}));
  b.output(b.op("Reshape", "reshape", {x, target}));
  ASSERT_TRUE(b.infer().empty());

  ir::Tensor in = ir::Tensor::fromVector<float>({2, 3, 4}, std::vector<float>(24, 1.5f));
  const auto before = firstOutput(b.graph(), in);
  passes::PassContext ctx;
  auto pm = passes::standardPipeline();
  auto rec = pm.run(b.graph(), ctx);
  ASSERT_TRUE(rec.ok()) << rec.errorText();
  EXPECT_EQ(b.graph().numNodes(), 1u);
  EXPECT_EQ(opCount(b.graph(), "Reshape"), 1u);
  EXPECT_EQ(b.graph().value(b.graph().outputs()[0]).type.shape, (ir::Shape{2, 12}));
  EXPECT_EQ(firstOutput(b.graph(), in), before);
}

// A decoder's causal mask, built from constants the way exports write it
// (ConstantOfShape -> Trilu -> Equal -> Where), folds to one constant: only
// the Where on the scores is left (issue #16 item 2).
TEST(ConstantFolding, FoldsACausalMaskBuiltFromConstants) {
  GraphBuilder b;
  auto scores = b.input("scores", {4, 4});
  ir::Attributes one;
  one.set("value", ir::Tensor::fromVector<float>({1}, {1.0f}));
  auto ones = b.op("ConstantOfShape", "ones", {b.constant("shp", ir::Tensor::fromVector<int64_t>({2}, {4, 4}))}, one);
  auto lower = b.op("Trilu", "tril", {ones}, attrs({{"upper", int64_t{0}}}));
  auto future = b.op("Equal", "is_future", {lower, b.constant("zero", ir::Tensor::scalar<float>(0.0f))});
  auto masked = b.op("Where", "mask", {future, b.constant("ninf", ir::Tensor::scalar<float>(-1e9f)), scores});
  b.output(masked);
  ASSERT_TRUE(b.infer().empty());
  std::vector<float> v(16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.25f;
  const ir::Tensor in = ir::Tensor::fromVector<float>({4, 4}, v);
  const auto before = firstOutput(b.graph(), in);
  EXPECT_EQ(before[1], -1e9f);  // row 0 sees only column 0
  EXPECT_EQ(before[4], 1.0f);   // row 1 sees column 0
  passes::PassContext ctx;
  auto rec = passes::standardPipeline().run(b.graph(), ctx);
  ASSERT_TRUE(rec.ok()) << rec.errorText();
  for (const char* op : {"ConstantOfShape", "Trilu", "Equal"}) EXPECT_EQ(opCount(b.graph(), op), 0u) << op;
  EXPECT_EQ(b.graph().numNodes(), 1u);
  EXPECT_EQ(firstOutput(b.graph(), in), before);
}

TEST(ConstantFolding, MaterialisesConstantOfShape) {
  GraphBuilder b;
  auto x = b.input("x", {3});
  ir::Attributes a;
  a.set("value", ir::Tensor::fromVector<float>({1}, {2.0f}));
  auto shp = b.constant("shp", ir::Tensor::fromVector<int64_t>({1}, {3}));
  auto c = b.op("ConstantOfShape", "fill", {shp}, a);
  b.output(b.op("Mul", "mul", {x, c}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_TRUE(passes::ConstantFolding().run(b.graph(), ctx).value());
  b.graph().compact();
  ASSERT_EQ(b.graph().numNodes(), 1u);
  const ir::Value& w = b.graph().value(b.graph().node(0).inputs[1]);
  ASSERT_TRUE(w.constant.has_value());
  EXPECT_EQ(w.constant->values<float>()[2], 2.0f);
}

TEST(ConstantFolding, LeavesNodesThatDependOnInputs) {
  GraphBuilder b;
  auto x = b.input("x", {3});
  auto c = b.constant("c", ir::Tensor::fromVector<float>({3}, {1, 2, 3}));
  b.output(b.op("Add", "add", {x, c}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::ConstantFolding().run(b.graph(), ctx).value());
}

TEST(ConstantFolding, RespectsOutputSizeLimit) {
  GraphBuilder b;
  auto x = b.input("x", {100});
  auto shp = b.constant("shp", ir::Tensor::fromVector<int64_t>({1}, {100}));
  auto c = b.op("ConstantOfShape", "fill", {shp});
  b.output(b.op("Add", "add", {x, c}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::ConstantFolding(10).run(b.graph(), ctx).value());
}

TEST(CommonSubexpressionElimination, MergesEqualNodesAndConstants) {
  GraphBuilder b;
  auto x = b.input("x", {4});
  auto c1 = b.constant("c1", ir::Tensor::fromVector<float>({1}, {0.5f}));
  auto c2 = b.constant("c2", ir::Tensor::fromVector<float>({1}, {0.5f}));
  auto a1 = b.op("Mul", "m1", {x, c1});
  auto a2 = b.op("Mul", "m2", {x, c2});
  b.output(b.op("Add", "sum", {a1, a2}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_TRUE(passes::CommonSubexpressionElimination().run(b.graph(), ctx).value());
  b.graph().compact();
  EXPECT_EQ(opCount(b.graph(), "Mul"), 1u);
  const ir::Node& add = b.graph().node(b.graph().value(b.graph().outputs()[0]).producer);
  EXPECT_EQ(add.inputs[0], add.inputs[1]);
}

TEST(CommonSubexpressionElimination, KeepsNodesWithDifferentAttributes) {
  GraphBuilder b;
  auto x = b.input("x", {4});
  auto a1 = b.op("LeakyRelu", "l1", {x}, attrs({{"alpha", 0.1f}}));
  auto a2 = b.op("LeakyRelu", "l2", {x}, attrs({{"alpha", 0.2f}}));
  b.output(b.op("Add", "sum", {a1, a2}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::CommonSubexpressionElimination().run(b.graph(), ctx).value());
  EXPECT_EQ(opCount(b.graph(), "LeakyRelu"), 2u);
}

TEST(DeadCodeElimination, RemovesUnusedChainsKeepsOutputs) {
  GraphBuilder b;
  auto x = b.input("x", {4});
  auto dead1 = b.op("Exp", "dead1", {x});
  b.op("Neg", "dead2", {dead1});
  b.output(b.op("Relu", "live", {x}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_TRUE(passes::DeadCodeElimination().run(b.graph(), ctx).value());
  b.graph().compact();
  ASSERT_EQ(b.graph().numNodes(), 1u);
  EXPECT_EQ(b.graph().node(0).name, "live");
  EXPECT_FALSE(b.graph().findValue("dead1").has_value());
}

TEST(DeadCodeElimination, NothingToRemove) {
  GraphBuilder b;
  auto x = b.input("x", {4});
  b.output(b.op("Relu", "live", {x}));
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  EXPECT_FALSE(passes::DeadCodeElimination().run(b.graph(), ctx).value());
}
