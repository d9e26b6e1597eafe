// Copies that need not copy (kernels/in_place.h): which Concats may have
// their producers write straight into their output, which Gathers and
// Splits may hand out parts of their input, the offsets, and the library's
// in-place candidates (first, one rTask, nothing written).
#include "core/kernels/in_place.h"

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
  EXPECT_EQ(first.placeOffsets, (std::vector<int64_t>{0, 24}));  // for the buffer tables
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

ir::Tensor index(int64_t i) { return ir::Tensor::fromVector<int64_t>({}, {i}); }

TEST(PartsInPlace, AGatherOfOneConstantIndexAlongTheOuterAxisIsABlockOfItsInput) {
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {100, 1, 256});
  const ir::ValueId step = b.op("Gather", "step", {x, b.constant("t", index(-3))}, attrs({{"axis", int64_t{0}}}));
  b.op("Relu", "use", {step});
  ASSERT_TRUE(b.infer().empty());
  EXPECT_EQ(partsInPlaceOffsets(b.graph(), b.graph().value(step).producer), (Offsets{{97 * 256}}));
  auto k = kernelsFor(b.graph(), b.graph().value(step).producer);
  ASSERT_TRUE(k.ok()) << k.errorText();
  ASSERT_GE(k->candidates.size(), 2u);
  EXPECT_EQ(k->candidates.front().name, "gather_in_place");
  EXPECT_TRUE(k->candidates.front().outputsInPlace);
  EXPECT_FALSE(k->candidates.front().inputsInPlace);
  EXPECT_EQ(k->candidates.front().placeOffsets, (std::vector<int64_t>{97 * 256}));
}

TEST(PartsInPlace, ASplitAlongTheOuterAxisHandsOutConsecutiveBlocks) {
  GraphBuilder b;
  const auto parts = b.node("Split", "split", {b.input("x", {1, 10, 4}), b.constant("sizes", ir::Tensor::fromVector<int64_t>({3}, {2, 5, 3}))},
                            attrs({{"axis", int64_t{1}}}), 3);
  ASSERT_TRUE(b.infer().empty());
  EXPECT_EQ(partsInPlaceOffsets(b.graph(), b.graph().value(parts[0]).producer), (Offsets{{0, 8, 28}}));
}

TEST(PartsInPlace, NotWhereAPartIsStridedAGraphOutputOrTheIndexIsComputed) {
  {  // batch 2: each step is two blocks
    GraphBuilder b;
    const ir::ValueId g = b.op("Gather", "g", {b.input("x", {2, 5, 3}), b.constant("t", index(1))}, attrs({{"axis", int64_t{1}}}));
    ASSERT_TRUE(b.infer().empty());
    EXPECT_EQ(partsInPlaceOffsets(b.graph(), b.graph().value(g).producer), std::nullopt);
  }
  {  // a graph output: the runtime binds its buffer itself
    GraphBuilder b;
    const ir::ValueId g = b.op("Gather", "g", {b.input("x", {5, 3}), b.constant("t", index(1))});
    b.output(g);
    ASSERT_TRUE(b.infer().empty());
    EXPECT_EQ(partsInPlaceOffsets(b.graph(), b.graph().value(g).producer), std::nullopt);
  }
  {  // indices known only at run time
    GraphBuilder b;
    const ir::ValueId g = b.op("Gather", "g", {b.input("x", {5, 3}), b.input("i", {}, ir::DType::Int64)});
    ASSERT_TRUE(b.infer().empty());
    EXPECT_EQ(partsInPlaceOffsets(b.graph(), b.graph().value(g).producer), std::nullopt);
  }
}

TEST(PartsInPlace, ASliceOfWholeRowsAndATransposeOfAUnitDimAreBlocksTooAStridedSliceIsNot) {
  auto ints = [](std::vector<int64_t> v) { return ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v); };
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {6, 4});
  const ir::ValueId rows = b.op("Slice", "rows", {x, b.constant("s", ints({2})), b.constant("e", ints({5})), b.constant("a", ints({0}))});
  const ir::ValueId cols = b.op("Slice", "cols", {x, b.constant("s2", ints({1})), b.constant("e2", ints({3})), b.constant("a2", ints({1}))});
  const ir::ValueId t = b.op("Transpose", "t", {b.input("y", {1, 5, 3})}, attrs({{"perm", std::vector<int64_t>{1, 0, 2}}}));
  ASSERT_TRUE(b.infer().empty());
  EXPECT_EQ(partsInPlaceOffsets(b.graph(), b.graph().value(rows).producer), (Offsets{{8}}));
  EXPECT_EQ(partsInPlaceOffsets(b.graph(), b.graph().value(cols).producer), std::nullopt);
  EXPECT_EQ(partsInPlaceOffsets(b.graph(), b.graph().value(t).producer), (Offsets{{0}}));
  auto k = kernelsFor(b.graph(), b.graph().value(rows).producer);
  ASSERT_TRUE(k.ok()) << k.errorText();
  EXPECT_EQ(k->candidates.front().name, "slice_in_place");
}

}  // namespace
}  // namespace rammer::kernels
