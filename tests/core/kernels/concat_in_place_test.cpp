// Concat in place (kernels/concat_in_place.h): which Concats may have their
// producers write straight into their output, each input's offset there,
// and the library's in-place candidate (first, one rTask, nothing written).
#include "core/kernels/concat_in_place.h"

#include <gtest/gtest.h>

#include "core/kernels/kernel_library.h"
#include "tests/support/graph_builder.h"

namespace rammer::kernels {
namespace {

using rammer::testing::attrs;
using rammer::testing::GraphBuilder;
using Offsets = std::optional<std::vector<int64_t>>;

// Concat(Relu(a), Relu(b)) along `axis` of inputs shaped `sa` and `sb`.
struct TwoParts {
  GraphBuilder b;
  ir::ValueId x, y, cat;
  ir::NodeId node = ir::kNone;
  TwoParts(ir::Shape sa, ir::Shape sb, int64_t axis) {
    x = b.op("Relu", "x", {b.input("a", std::move(sa))});
    y = b.op("Relu", "y", {b.input("b", std::move(sb))});
    cat = b.op("Concat", "cat", {x, y}, attrs({{"axis", axis}}));
    node = b.graph().value(cat).producer;
  }
  Offsets offsets() {
    EXPECT_TRUE(b.infer().empty());
    return concatInPlaceOffsets(b.graph(), node);
  }
};

TEST(ConcatInPlace, StepsAlongTheOuterAxisAndChannelsAtBatchOneLieEndToEnd) {
  TwoParts steps({3, 1, 8}, {2, 1, 8}, 0);
  steps.b.output(steps.cat);
  EXPECT_EQ(steps.offsets(), (Offsets{{0, 24}}));
  TwoParts channels({1, 3, 4, 4}, {1, 5, 4, 4}, 1);
  EXPECT_EQ(channels.offsets(), (Offsets{{0, 48}}));
  TwoParts last({1, 1, 3}, {1, 1, 5}, -1);
  EXPECT_EQ(last.offsets(), (Offsets{{0, 3}}));
}

TEST(ConcatInPlace, InterleavedPartsAreNotContiguous) {
  TwoParts batch2({2, 3, 4}, {2, 5, 4}, 1);  // each input is two blocks of the output
  EXPECT_EQ(batch2.offsets(), std::nullopt);
}

TEST(ConcatInPlace, OnlyAnOperatorsOwnOutputMayMove) {
  {  // a graph input
    GraphBuilder b;
    const ir::ValueId a = b.input("a", {2, 4});
    const ir::ValueId cat = b.op("Concat", "cat", {a, b.op("Relu", "y", {b.input("b", {2, 4})})}, attrs({{"axis", int64_t{0}}}));
    ASSERT_TRUE(b.infer().empty());
    EXPECT_EQ(concatInPlaceOffsets(b.graph(), b.graph().value(cat).producer), std::nullopt);
  }
  {  // a graph output: the runtime binds it alone
    TwoParts t({2, 4}, {2, 4}, 0);
    t.b.output(t.x);
    EXPECT_EQ(t.offsets(), std::nullopt);
  }
  {  // the same value twice, or in a second Concat: it has one place
    GraphBuilder b;
    const ir::ValueId x = b.op("Relu", "x", {b.input("a", {2, 4})});
    const ir::ValueId twice = b.op("Concat", "twice", {x, x}, attrs({{"axis", int64_t{0}}}));
    const ir::ValueId other = b.op("Concat", "other", {x, b.op("Relu", "y", {b.input("b", {1, 4})})}, attrs({{"axis", int64_t{0}}}));
    ASSERT_TRUE(b.infer().empty());
    EXPECT_EQ(concatInPlaceOffsets(b.graph(), b.graph().value(twice).producer), std::nullopt);
    EXPECT_EQ(concatInPlaceOffsets(b.graph(), b.graph().value(other).producer), std::nullopt);
  }
  {  // a view's result: its storage is its input's
    GraphBuilder b;
    const ir::ValueId x = b.op("Relu", "x", {b.input("a", {8})});
    const ir::ValueId r = b.op("Reshape", "r", {x, b.constant("shape", ir::Tensor::fromVector<int64_t>({2}, {2, 4}))});
    const ir::ValueId cat = b.op("Concat", "cat", {r, b.op("Relu", "y", {b.input("b", {2, 4})})}, attrs({{"axis", int64_t{0}}}));
    ASSERT_TRUE(b.infer().empty());
    EXPECT_EQ(concatInPlaceOffsets(b.graph(), b.graph().value(cat).producer), std::nullopt);
  }
}

TEST(ConcatInPlace, TheLibraryOffersItFirstAsOneRTaskThatWritesNothing) {
  TwoParts t({3, 1, 8}, {2, 1, 8}, 0);
  ASSERT_TRUE(t.offsets());
  auto k = kernelsFor(t.b.graph(), t.node);
  ASSERT_TRUE(k.ok()) << k.errorText();
  ASSERT_GE(k->candidates.size(), 2u) << "the copies stay candidates";
  const RKernel& first = k->candidates.front();
  EXPECT_EQ(first.name, "concat_in_place");
  EXPECT_TRUE(first.inputsInPlace);
  EXPECT_EQ(first.numRTasks, 1);
  std::vector<WrittenRun> runs;
  first.written(0, runs);
  EXPECT_TRUE(runs.empty());
  for (size_t i = 1; i < k->candidates.size(); ++i) EXPECT_FALSE(k->candidates[i].inputsInPlace);
  // A Concat that cannot run in place has no such candidate.
  TwoParts batch2({2, 3, 4}, {2, 5, 4}, 1);
  ASSERT_TRUE(batch2.b.infer().empty());
  auto k2 = kernelsFor(batch2.b.graph(), batch2.node);
  ASSERT_TRUE(k2.ok()) << k2.errorText();
  for (const RKernel& c : k2->candidates) EXPECT_FALSE(c.inputsInPlace) << c.name;
}

}  // namespace
}  // namespace rammer::kernels
