// The opset-6 broadcast forms PyTorch's older exports use (`broadcast=1`
// with `axis`, PRelu's per-channel slope) rewritten into numpy broadcast:
// the reference computes the same outputs before and after, and the nodes
// then fuse into FusedElementwise (they had no rKernel before).
#include "core/passes/legacy_broadcast.h"

#include <gtest/gtest.h>

#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"
#include "core/passes/pass_manager.h"
#include "tests/support/graph_builder.h"

namespace rammer::passes {
namespace {

namespace rt = rammer::testing;

std::vector<float> floats(const ir::Tensor& t) {
  std::vector<float> v(t.data<float>(), t.data<float>() + t.numel());
  return v;
}

// The standard pipeline leaves the outputs as they were and fuses every
// element-wise node.
void expectFusedWithTheSameOutputs(ir::Graph g) {
  ASSERT_TRUE(ops::inferTypes(g).empty());
  auto inputs = exec::makeRandomInputs(g, 3);
  ASSERT_TRUE(inputs);
  auto before = exec::runReference(g, *inputs);
  ASSERT_TRUE(before) << before.errorText();
  PassContext ctx;
  auto records = standardPipeline().run(g, ctx);
  ASSERT_TRUE(records) << records.errorText();
  auto after = exec::runReference(g, *inputs);
  ASSERT_TRUE(after) << after.errorText();
  ASSERT_EQ(after->size(), before->size());
  for (size_t i = 0; i < before->size(); ++i) EXPECT_EQ(floats((*after)[i]), floats((*before)[i]));
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    const ir::Node& n = g.node(static_cast<ir::NodeId>(i));
    if (!n.removed && n.opType != "Reshape") EXPECT_EQ(n.opType, "FusedElementwise") << n.name;
  }
}

TEST(LegacyBroadcast, AnAxisBroadcastBecomesTrailingOnes) {
  rt::GraphBuilder b;
  b.graph().opsetVersion = 6;
  const ir::ValueId x = b.input("x", {2, 3, 4}), y = b.input("y", {3});
  b.output(b.op("Add", "add", {x, y}, rt::attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{1}}})));
  ir::Graph g = b.graph();
  ASSERT_TRUE(ops::inferTypes(g).empty());
  PassContext ctx;
  EXPECT_TRUE(LegacyBroadcast().run(g, ctx).value());
  const ir::Node& add = g.node(0);
  EXPECT_FALSE(add.attrs.has("broadcast"));
  EXPECT_FALSE(add.attrs.has("axis"));
  EXPECT_EQ(g.value(add.input(1)).type.shape, (ir::Shape{3, 1}));  // through a Reshape view of y
  expectFusedWithTheSameOutputs(b.graph());
}

TEST(LegacyBroadcast, AConstantIsReshapedAndASuffixNeedsNothing) {
  rt::GraphBuilder b;
  b.graph().opsetVersion = 6;
  const ir::ValueId x = b.input("x", {2, 3, 4});
  const ir::ValueId c = b.constant("c", ir::Tensor::fromVector<float>({2}, {0.5f, -2}));
  const ir::ValueId first = b.op("Mul", "mul", {x, c}, rt::attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{0}}}));
  const ir::ValueId d = b.constant("d", ir::Tensor::fromVector<float>({4}, {1, 2, 3, 4}));
  b.output(b.op("Sub", "sub", {first, d}, rt::attrs({{"broadcast", int64_t{1}}})));
  expectFusedWithTheSameOutputs(b.graph());
}

TEST(LegacyBroadcast, APerChannelSlopeBroadcastsOverTheDimsAfterIt) {
  rt::GraphBuilder b;
  b.graph().opsetVersion = 6;
  const ir::ValueId x = b.input("x", {2, 3, 5, 5});
  const ir::ValueId slope = b.constant("slope", ir::Tensor::fromVector<float>({3}, {0.1f, 0.2f, 0.3f}));
  b.output(b.op("PRelu", "prelu", {x, slope}));
  expectFusedWithTheSameOutputs(b.graph());
}

TEST(LegacyBroadcast, LaterOpsetsAndShapesItCannotPlaceAreLeftAlone) {
  rt::GraphBuilder b;  // opset 17: numpy broadcast already
  const ir::ValueId x = b.input("x", {2, 3}), y = b.input("y", {3});
  b.output(b.op("Add", "add", {x, y}));
  ASSERT_TRUE(b.infer().empty());
  PassContext ctx;
  EXPECT_FALSE(LegacyBroadcast().run(b.graph(), ctx).value());

  rt::GraphBuilder old;
  old.graph().opsetVersion = 6;
  const ir::ValueId u = old.input("u", {2, 3}), v = old.input("v", {2, 3, 4});  // B longer than A
  old.output(old.op("Add", "add", {u, v}, rt::attrs({{"broadcast", int64_t{1}}})));
  (void)old.infer();  // the reference refuses this shape; the pass must not rewrite it
  PassContext ctx2;
  EXPECT_FALSE(LegacyBroadcast().run(old.graph(), ctx2).value());
  EXPECT_TRUE(old.graph().node(0).attrs.has("broadcast"));
}

}  // namespace
}  // namespace rammer::passes
