// Data-movement rKernels: exact copies of the reference ops' results.
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;

namespace {

using Ints = std::vector<int64_t>;
constexpr double kExact = 1e-5;

ir::Tensor ints(const Ints& v) { return ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v); }

void check(GraphBuilder& b) {
  ASSERT_TRUE(b.infer().empty());
  checkCandidates(b.graph(), lastNode(b.graph()), kExact);
}

}  // namespace

TEST(CopyKernels, ConcatAlongMiddleAxis) {
  GraphBuilder b;
  b.output(b.op("Concat", "cat", {b.input("a", {2, 3, 4}), b.input("b", {2, 1, 4}), b.input("c", {2, 5, 4})},
                attrs({{"axis", int64_t{1}}})));
  check(b);
}

TEST(CopyKernels, SplitIntoUnevenParts) {
  GraphBuilder b;
  b.node("Split", "split", {b.input("x", {3, 10}), b.constant("split", ints({2, 5, 3}))}, attrs({{"axis", int64_t{-1}}}), 3);
  check(b);
}

// Parts with no elements copy nothing and build no per-dim table.
TEST(CopyKernels, EmptyPartsOfASplitOrConcat) {
  GraphBuilder b;
  b.node("Split", "split", {b.input("x", {3, 10}), b.constant("split", ints({4, 0, 6}))},
         attrs({{"axis", int64_t{-1}}}), 3);
  check(b);
  GraphBuilder c;
  c.output(c.op("Concat", "concat", {c.input("a", {2, 5}), c.input("e", {0, 5}), c.input("b", {1, 5})},
                attrs({{"axis", int64_t{0}}})));
  check(c);
}

TEST(CopyKernels, SliceWithNegativeStep) {
  GraphBuilder b;
  b.output(b.op("Slice", "slice",
                {b.input("x", {4, 10, 6}), b.constant("starts", ints({8, 1})), b.constant("ends", ints({0, 100})),
                 b.constant("axes", ints({1, 2})), b.constant("steps", ints({-3, 2}))}));
  check(b);
}

TEST(CopyKernels, SliceLegacyAttributes) {
  GraphBuilder b;
  b.graph().opsetVersion = 9;
  b.output(b.op("Slice", "slice", {b.input("x", {5, 6})},
                attrs({{"starts", Ints{1, -4}}, {"ends", Ints{4, 1000}}})));
  check(b);
}

TEST(CopyKernels, Transpose) {
  GraphBuilder b;
  b.output(b.op("Transpose", "t", {b.input("x", {2, 3, 4, 5})}, attrs({{"perm", Ints{0, 3, 1, 2}}})));
  check(b);
  GraphBuilder d;
  d.output(d.op("Transpose", "t", {d.input("x", {3, 7})}));  // reversed by default
  check(d);
}

TEST(CopyKernels, GatherWithMatrixOfIndices) {
  GraphBuilder b;
  b.output(b.op("Gather", "g",
                {b.input("x", {3, 5, 4}), b.constant("idx", ir::Tensor::fromVector<int64_t>({2, 3}, {0, -1, 2, 4, 4, 1}))},
                attrs({{"axis", int64_t{1}}})));
  check(b);
}

TEST(CopyKernels, PadModes) {
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    SCOPED_TRACE(mode);
    GraphBuilder b;
    std::vector<ir::ValueId> in = {b.input("x", {2, 3, 4, 5}), b.constant("pads", ints({0, 1, 2, 1, 0, 0, 1, 3}))};
    if (std::string(mode) == "constant") in.push_back(b.constant("v", ir::Tensor::scalar<float>(0.75f)));
    b.output(b.op("Pad", "pad", in, attrs({{"mode", std::string(mode)}})));
    check(b);
  }
  GraphBuilder legacy;
  legacy.graph().opsetVersion = 9;
  legacy.output(legacy.op("Pad", "pad", {legacy.input("x", {3, 4})},
                          attrs({{"pads", Ints{1, 2, 0, 1}}, {"value", -2.5f}})));
  check(legacy);
}

TEST(CopyKernels, ExpandAndTile) {
  GraphBuilder b;
  b.output(b.op("Expand", "e", {b.input("x", {3, 1}), b.constant("shape", ints({2, 3, 4}))}));
  check(b);
  GraphBuilder t;
  t.output(t.op("Tile", "t", {t.input("x", {2, 3}), t.constant("reps", ints({3, 2}))}));
  check(t);
}

// A model of a few bytes can Expand or Tile to billions of elements: their
// segments come from the shapes, not from running the op on an index
// tensor of that size (issue #18 item 4); other copy ops refuse to probe a
// map that large, with a message.
TEST(CopyKernels, BillionsOfExpandedOrTiledElementsNeedNoPerElementMap) {
  for (const char* op : {"Expand", "Tile"}) {
    SCOPED_TRACE(op);
    GraphBuilder b;
    b.output(b.op(op, "big", {b.input("x", {1, 1}), b.constant("s", ints({100000, 100000}))}));
    ASSERT_TRUE(b.infer().empty());
    auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
    ASSERT_TRUE(k.ok()) << k.errorText();
    const auto& c = k->candidates[0];
    EXPECT_GT(c.numRTasks, 100000) << c.name;  // 10^10 elements of work
    EXPECT_EQ(c.cudaSource.find("static __device__"), std::string::npos) << "no table: every offset is affine";
  }
  GraphBuilder p;
  p.output(p.op("Pad", "pad", {p.input("x", {1, 1}), p.constant("pads", ints({0, 0, 20000, 20000}))}));
  ASSERT_TRUE(p.infer().empty());
  auto k = kernels::kernelsFor(p.graph(), lastNode(p.graph()));
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.errorText().find("[20001, 20001] has more than 67108864 elements, too many to map one by one"),
            std::string::npos)
      << k.errorText();
}

TEST(CopyKernels, DepthToSpaceAndBack) {
  for (const char* mode : {"DCR", "CRD"}) {
    GraphBuilder b;
    b.output(b.op("DepthToSpace", "d2s", {b.input("x", {1, 8, 2, 3})},
                  attrs({{"blocksize", int64_t{2}}, {"mode", std::string(mode)}})));
    check(b);
  }
  GraphBuilder s;
  s.output(s.op("SpaceToDepth", "s2d", {s.input("x", {2, 3, 4, 6})}, attrs({{"blocksize", int64_t{2}}})));
  check(s);
}

TEST(CopyKernels, AffineMapsNeedNoTables) {
  GraphBuilder b;
  b.output(b.op("Transpose", "t", {b.input("x", {4, 6})}));
  ASSERT_TRUE(b.infer().empty());
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok()) << k.errorText();
  EXPECT_EQ(k->candidates[0].cudaSource.find("static __device__"), std::string::npos) << k->candidates[0].cudaSource;
  // The output's inner dim (4) walks the input by 6, its outer (6) by 1.
  EXPECT_NE(k->candidates[0].cudaSource.find("RammerCopyDim<0, 4LL, 1LL, 0LL, 4LL, RammerCopyAffine<0LL, 6LL>>, "
                                             "RammerCopyDim<1, 6LL, 4LL, 0LL, 6LL, RammerCopyAffine<0LL, 1LL>>"),
            std::string::npos)
      << k->candidates[0].cudaSource;
}

// GatherElements with constant indices (negative ones too): no per-dim
// structure, so one table entry per output element (issue #16 item 3).
TEST(CopyKernels, GatherElementsUsesAFlatTable) {
  for (int64_t axis : {0, 1}) {
    GraphBuilder b;
    b.output(b.op("GatherElements", "ge",
                  {b.input("x", {3, 4}),
                   b.constant("idx", ir::Tensor::fromVector<int64_t>({3, 2}, axis == 0 ? Ints{2, 0, -1, 1, 0, -3}
                                                                                         : Ints{3, 0, -1, 1, 2, -4}))},
                  attrs({{"axis", axis}})));
    check(b);
    auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
    ASSERT_TRUE(k.ok()) << k.errorText();
    EXPECT_NE(k->candidates[0].cudaSource.find("static __device__"), std::string::npos) << k->candidates[0].cudaSource;
  }
}
