// Shape and data-movement ops (core/ops/tensor_*.cpp, string_ops.cpp).
// Expected values were worked out by hand or with numpy (noted where so).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/ops/type_inference.h"
#include "tests/core/ops/tensor_test_util.h"

namespace rammer::ops::testing {
namespace {

using ir::DType;
using ir::kUnknownDim;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// ---- registry -------------------------------------------------------------

TEST(TensorOpsRegistry, EveryOpIsRegisteredWithInferAndCompute) {
  for (const char* op : {"Concat", "Split", "Slice", "Gather", "Expand", "Tile", "Reshape", "Flatten", "Transpose",
                         "Squeeze", "Unsqueeze", "Shape", "Size", "ConstantOfShape", "Constant", "Identity", "Dropout",
                         "Cast", "Pad", "Range", "DepthToSpace", "SpaceToDepth", "StringNormalizer"}) {
    const OpDef* d = OpRegistry::builtin().find("", op);
    ASSERT_NE(d, nullptr) << op;
    EXPECT_TRUE(d->infer) << op;
    EXPECT_TRUE(d->compute) << op;
    EXPECT_EQ(d->computeFromTypesOnly, std::string(op) == "Shape" || std::string(op) == "Size") << op;
  }
  EXPECT_EQ(OpRegistry::builtin().find("", "Slice")->category, OpCategory::DataMovement);
  EXPECT_EQ(OpRegistry::builtin().find("", "Constant")->category, OpCategory::Constant);
  EXPECT_EQ(OpRegistry::builtin().find("", "ConstantOfShape")->category, OpCategory::Constant);
}

// ---- Concat ---------------------------------------------------------------

TEST(TensorOpsConcat, JoinsAlongAxis) {
  auto c = NodeCase("Concat").attr("axis", int64_t{1}).in(f32({2, 1}, {1, 2})).in(f32({2, 2}, {3, 4, 5, 6}));
  EXPECT_EQ(c.infer1(), type(DType::Float32, {2, 3}));
  ir::Tensor out = c.compute1();
  EXPECT_EQ(out.shape(), (ir::Shape{2, 3}));
  EXPECT_EQ(vals<float>(out), (std::vector<float>{1, 3, 4, 2, 5, 6}));
}

TEST(TensorOpsConcat, NegativeAxisAndInt64ShapeVectors) {
  auto c = NodeCase("Concat").attr("axis", int64_t{-1}).in(ints({2})).in(ints({-1})).in(ints({7, 8}));
  EXPECT_EQ(vals<int64_t>(c.compute1()), (std::vector<int64_t>{2, -1, 7, 8}));
}

TEST(TensorOpsConcat, Strings) {
  auto c = NodeCase("Concat").attr("axis", int64_t{0}).in(strs({1}, {"a"})).in(strs({2}, {"b", "c"}));
  EXPECT_EQ(c.compute1().strings(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(TensorOpsConcat, UnknownDimsPropagate) {
  auto c = NodeCase("Concat")
               .attr("axis", int64_t{1})
               .in(type(DType::Float32, {kUnknownDim, 2}))
               .in(type(DType::Float32, {4, kUnknownDim}));
  // Dim 0 is known from the second input; the axis sum is unknown.
  EXPECT_EQ(c.infer1(), type(DType::Float32, {4, kUnknownDim}));
  auto d = NodeCase("Concat").attr("axis", int64_t{0}).in(ir::TensorType{DType::Float32, {}, false}).in(type(DType::Float32, {3, 5}));
  EXPECT_EQ(d.infer1(), type(DType::Float32, {kUnknownDim, 5}));
}

TEST(TensorOpsConcat, RankAndDimMismatchesAreErrors) {
  auto rank = NodeCase("Concat").attr("axis", int64_t{0}).in(f32({2, 2}, {1, 2, 3, 4})).in(f32({2}, {1, 2}));
  std::string msg = opError([&] { rank.infer(); });
  EXPECT_PRED2(hasSubstr, msg, "different ranks");
  EXPECT_PRED2(hasSubstr, msg, "[2, 2]");
  EXPECT_PRED2(hasSubstr, msg, "[2]");
  EXPECT_PRED2(hasSubstr, opError([&] { rank.compute(); }), "different ranks");
  auto dims = NodeCase("Concat").attr("axis", int64_t{0}).in(f32({1, 2}, {1, 2})).in(f32({1, 3}, {1, 2, 3}));
  EXPECT_PRED2(hasSubstr, opError([&] { dims.infer(); }), "does not match");
}

// ---- Split ----------------------------------------------------------------

TEST(TensorOpsSplit, EqualPartsWithoutSizes) {
  auto c = NodeCase("Split").attr("axis", int64_t{1}).in(iota32({2, 4})).outputs(2);
  auto types = c.infer();
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[1], type(DType::Float32, {2, 2}));
  auto outs = c.compute();
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(vals<float>(outs[0]), (std::vector<float>{0, 1, 4, 5}));
  EXPECT_EQ(vals<float>(outs[1]), (std::vector<float>{2, 3, 6, 7}));
  auto bad = NodeCase("Split").in(iota32({5})).outputs(2);
  EXPECT_PRED2(hasSubstr, opError([&] { bad.infer(); }), "equal parts");
}

TEST(TensorOpsSplit, SizesAttributeBeforeOpset13) {
  auto c = NodeCase("Split", 11).attr("split", std::vector<int64_t>{1, 3, 2}).in(iota32({6})).outputs(3);
  auto outs = c.compute();
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(vals<float>(outs[0]), (std::vector<float>{0}));
  EXPECT_EQ(vals<float>(outs[1]), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(vals<float>(outs[2]), (std::vector<float>{4, 5}));
  auto bad = NodeCase("Split", 11).attr("split", std::vector<int64_t>{1, 2}).in(iota32({6})).outputs(2);
  EXPECT_PRED2(hasSubstr, opError([&] { bad.infer(); }), "sums to 3");
}

TEST(TensorOpsSplit, SizesInputSinceOpset13) {
  auto c = NodeCase("Split", 13).attr("axis", int64_t{-1}).in(iota32({2, 3})).in(ints({2, 1})).outputs(2);
  auto outs = c.compute();
  EXPECT_EQ(vals<float>(outs[0]), (std::vector<float>{0, 1, 3, 4}));
  EXPECT_EQ(vals<float>(outs[1]), (std::vector<float>{2, 5}));
  EXPECT_EQ(outs[0].shape(), (ir::Shape{2, 2}));
  // Split sizes computed at run time: the split dim becomes unknown.
  auto unknown = NodeCase("Split", 13).in(type(DType::Float32, {6, 2})).in(type(DType::Int64, {2})).outputs(2);
  EXPECT_EQ(unknown.infer()[0], type(DType::Float32, {kUnknownDim, 2}));
  auto count = NodeCase("Split", 13).in(iota32({6})).in(ints({3, 3})).outputs(3);
  EXPECT_PRED2(hasSubstr, opError([&] { count.compute(); }), "2 sizes for 3 outputs");
}

TEST(TensorOpsSplit, NumOutputsGivesSmallerLastChunk) {
  auto c = NodeCase("Split", 18).attr("num_outputs", int64_t{3}).in(iota32({7})).outputs(3);
  auto types = c.infer();
  EXPECT_EQ(types[0].shape, (ir::Shape{3}));
  EXPECT_EQ(types[2].shape, (ir::Shape{1}));
  EXPECT_EQ(vals<float>(c.compute()[2]), (std::vector<float>{6}));
}

// ---- Slice ----------------------------------------------------------------

// Data 0..23 as [2, 3, 4], int64.
ir::Tensor cube() {
  std::vector<int64_t> v(24);
  for (int64_t i = 0; i < 24; ++i) v[static_cast<size_t>(i)] = i;
  return i64({2, 3, 4}, v);
}

TEST(TensorOpsSlice, NegativeStepsReverse) {
  // numpy: a[::-1, 2:0:-1, ::-2] of arange(24).reshape(2, 3, 4).
  auto c = NodeCase("Slice", 13)
               .in(cube())
               .in(ints({-1, 2, -1}))
               .in(ints({kMin, 0, kMin}))
               .in(ints({0, 1, 2}))
               .in(ints({-1, -1, -2}));
  EXPECT_EQ(c.infer1(), type(DType::Int64, {2, 2, 2}));
  EXPECT_EQ(vals<int64_t>(c.compute1()), (std::vector<int64_t>{23, 21, 19, 17, 11, 9, 7, 5}));
}

TEST(TensorOpsSlice, ClampsOutOfRangeStartsAndEnds) {
  // numpy: a[:, -2:, 1:1000:2].
  auto c = NodeCase("Slice", 13).in(cube()).in(ints({-2, 1})).in(ints({kMax, 1000})).in(ints({1, -1})).in(ints({1, 2}));
  ir::Tensor out = c.compute1();
  EXPECT_EQ(out.shape(), (ir::Shape{2, 2, 2}));
  EXPECT_EQ(vals<int64_t>(out), (std::vector<int64_t>{5, 7, 9, 11, 17, 19, 21, 23}));

  // Negative step with a start past the end clamps to dim - 1; an end of
  // -100 clamps to -1 (i.e. through element 0).
  auto rev = NodeCase("Slice", 13).in(ints({0, 1, 2, 3})).in(ints({100})).in(ints({-100})).in(ints({0})).in(ints({-1}));
  EXPECT_EQ(vals<int64_t>(rev.compute1()), (std::vector<int64_t>{3, 2, 1, 0}));
  // Start beyond the end for a positive step: empty.
  auto empty = NodeCase("Slice", 13).in(ints({0, 1, 2, 3})).in(ints({3})).in(ints({1}));
  EXPECT_EQ(empty.compute1().shape(), (ir::Shape{0}));
  EXPECT_EQ(empty.infer1().shape, (ir::Shape{0}));
  // INT64_MIN start with a positive step clamps to 0.
  auto from0 = NodeCase("Slice", 13).in(ints({0, 1, 2, 3})).in(ints({kMin})).in(ints({2}));
  EXPECT_EQ(vals<int64_t>(from0.compute1()), (std::vector<int64_t>{0, 1}));
  // A huge negative step takes one element.
  auto one = NodeCase("Slice", 13).in(ints({0, 1, 2, 3})).in(ints({-1})).in(ints({kMin})).in(ints({0})).in(ints({kMin}));
  EXPECT_EQ(vals<int64_t>(one.compute1()), (std::vector<int64_t>{3}));
}

TEST(TensorOpsSlice, AttributesBeforeOpset10AndInt32Inputs) {
  auto old = NodeCase("Slice", 9)
                 .attr("starts", std::vector<int64_t>{1})
                 .attr("ends", std::vector<int64_t>{kMax})
                 .attr("axes", std::vector<int64_t>{1})
                 .in(iota32({2, 3}));
  EXPECT_EQ(vals<float>(old.compute1()), (std::vector<float>{1, 2, 4, 5}));
  auto i32in = NodeCase("Slice", 11).in(iota32({5})).in(i32({1}, {1})).in(i32({1}, {std::numeric_limits<int32_t>::max()}));
  EXPECT_EQ(vals<float>(i32in.compute1()), (std::vector<float>{1, 2, 3, 4}));
}

TEST(TensorOpsSlice, InferenceWithUnknowns) {
  // Unknown starts, known axes: only axis 1 becomes unknown.
  auto c = NodeCase("Slice", 13).in(type(DType::Float32, {4, 5, 6})).in(type(DType::Int64, {1})).in(ints({3})).in(ints({1}));
  EXPECT_EQ(c.infer1(), type(DType::Float32, {4, kUnknownDim, 6}));
  // Known parameters on an unknown dim: unknown; on known dims: computed.
  auto d = NodeCase("Slice", 13).in(type(DType::Float32, {kUnknownDim, 10})).in(ints({1, 2})).in(ints({3, -1}));
  EXPECT_EQ(d.infer1(), type(DType::Float32, {kUnknownDim, 7}));
  auto text = NodeCase("Slice", 13).in(strs({3}, {"a", "b", "c"})).in(ints({-1})).in(ints({kMin})).in(ints({0})).in(ints({-2}));
  EXPECT_EQ(text.compute1().strings(), (std::vector<std::string>{"c", "a"}));
  auto zero = NodeCase("Slice", 13).in(iota32({3})).in(ints({0})).in(ints({3})).in(ints({0})).in(ints({0}));
  EXPECT_PRED2(hasSubstr, opError([&] { zero.compute(); }), "step cannot be 0");
}

// ---- Gather ---------------------------------------------------------------

TEST(TensorOpsGather, Axis0WithNegativeIndices) {
  auto c = NodeCase("Gather").in(f32({3, 2}, {1, 2, 3, 4, 5, 6})).in(i64({2, 2}, {0, -1, 1, -3}));
  EXPECT_EQ(c.infer1(), type(DType::Float32, {2, 2, 2}));
  EXPECT_EQ(vals<float>(c.compute1()), (std::vector<float>{1, 2, 5, 6, 3, 4, 1, 2}));
}

TEST(TensorOpsGather, Axis1Int32IndicesAndScalarIndex) {
  auto c = NodeCase("Gather").attr("axis", int64_t{1}).in(f32({2, 3}, {1, 2, 3, 4, 5, 6})).in(i32({2}, {2, 0}));
  ir::Tensor out = c.compute1();
  EXPECT_EQ(out.shape(), (ir::Shape{2, 2}));
  EXPECT_EQ(vals<float>(out), (std::vector<float>{3, 1, 6, 4}));
  // The shape sub-graph case: a scalar index into a shape vector.
  auto s = NodeCase("Gather").in(ints({8, 3, 224})).in(ir::Tensor::scalar<int64_t>(-1));
  ir::Tensor dim = s.compute1();
  EXPECT_EQ(dim.rank(), 0);
  EXPECT_EQ(dim.data<int64_t>()[0], 224);
}

TEST(TensorOpsGather, OutOfRangeIndexIsAnOpError) {
  auto c = NodeCase("Gather").in(f32({3}, {1, 2, 3})).in(ints({3}));
  EXPECT_PRED2(hasSubstr, opError([&] { c.compute(); }), "index 3 is out of range for axis 0 of size 3");
  EXPECT_PRED2(hasSubstr, opError([&] { c.infer(); }), "out of range");
  auto neg = NodeCase("Gather").in(f32({3}, {1, 2, 3})).in(ints({-4}));
  EXPECT_PRED2(hasSubstr, opError([&] { neg.compute(); }), "index -4");
}

// ---- Expand / Tile --------------------------------------------------------

TEST(TensorOpsExpand, BidirectionalBroadcast) {
  // numpy: ones((2, 1, 4)) * [[1], [2], [3]].
  auto c = NodeCase("Expand").in(f32({3, 1}, {1, 2, 3})).in(ints({2, 1, 4}));
  EXPECT_EQ(c.infer1(), type(DType::Float32, {2, 3, 4}));
  ir::Tensor out = c.compute1();
  ASSERT_EQ(out.shape(), (ir::Shape{2, 3, 4}));
  std::vector<float> want;
  for (int b = 0; b < 2; ++b)
    for (float v : {1.f, 2.f, 3.f})
      for (int k = 0; k < 4; ++k) want.push_back(v);
  EXPECT_EQ(vals<float>(out), want);
  // A shorter target keeps the input's dims.
  auto keep = NodeCase("Expand").in(f32({2, 2}, {1, 2, 3, 4})).in(ints({1}));
  EXPECT_EQ(vals<float>(keep.compute1()), (std::vector<float>{1, 2, 3, 4}));
  auto bad = NodeCase("Expand").in(f32({3}, {1, 2, 3})).in(ints({4}));
  EXPECT_PRED2(hasSubstr, opError([&] { bad.infer(); }), "cannot expand [3] to [4]");
  auto partial = NodeCase("Expand").in(type(DType::Float32, {kUnknownDim, 1})).in(ints({2, 3}));
  EXPECT_EQ(partial.infer1(), type(DType::Float32, {2, 3}));
  auto unknown = NodeCase("Expand").in(type(DType::Float32, {3, 1})).in(type(DType::Int64, {3}));
  EXPECT_EQ(unknown.infer1(), type(DType::Float32, {kUnknownDim, kUnknownDim, kUnknownDim}));
}

TEST(TensorOpsTile, RepeatsEachAxis) {
  // numpy: tile([[1, 2], [3, 4]], (2, 3)).
  auto c = NodeCase("Tile").in(i64({2, 2}, {1, 2, 3, 4})).in(ints({2, 3}));
  EXPECT_EQ(c.infer1(), type(DType::Int64, {4, 6}));
  EXPECT_EQ(vals<int64_t>(c.compute1()), (std::vector<int64_t>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3,
                                                        4, 3, 4}));
  auto bad = NodeCase("Tile").in(iota32({2})).in(ints({2, 2}));
  EXPECT_PRED2(hasSubstr, opError([&] { bad.infer(); }), "rank 1");
}

// ---- Reshape / Flatten ----------------------------------------------------

TEST(TensorOpsReshape, ZeroCopiesAndMinusOneInfers) {
  auto c = NodeCase("Reshape").in(iota32({2, 3, 4})).in(ints({0, -1}));
  EXPECT_EQ(c.infer1(), type(DType::Float32, {2, 12}));
  ir::Tensor out = c.compute1();
  EXPECT_EQ(out.shape(), (ir::Shape{2, 12}));
  EXPECT_EQ(out.data<float>()[23], 23.f);
  auto allow = NodeCase("Reshape", 14).attr("allowzero", int64_t{1}).in(iota32({0, 3})).in(ints({3, 0}));
  EXPECT_EQ(allow.compute1().shape(), (ir::Shape{3, 0}));
}

TEST(TensorOpsReshape, ElementCountMismatchNamesBothShapes) {
  auto c = NodeCase("Reshape").in(iota32({2, 3})).in(ints({4, 2}));
  const std::string msg = opError([&] { c.compute(); });
  EXPECT_PRED2(hasSubstr, msg, "[2, 3]");
  EXPECT_PRED2(hasSubstr, msg, "[4, 2]");
  EXPECT_PRED2(hasSubstr, opError([&] { c.infer(); }), "[4, 2]");
  auto neg = NodeCase("Reshape").in(iota32({2, 3})).in(ints({4, -1}));
  EXPECT_PRED2(hasSubstr, opError([&] { neg.compute(); }), "[4, -1]");
  auto two = NodeCase("Reshape").in(iota32({2, 3})).in(ints({-1, -1}));
  EXPECT_PRED2(hasSubstr, opError([&] { two.infer(); }), "more than one -1");
}

TEST(TensorOpsReshape, PartiallyKnownInputs) {
  // An unknown batch copied by 0 cancels: [?, 3, 4] -> [0, -1] is [?, 12].
  auto batch = NodeCase("Reshape").in(type(DType::Float32, {kUnknownDim, 3, 4})).in(ints({0, -1}));
  EXPECT_EQ(batch.infer1(), type(DType::Float32, {kUnknownDim, 12}));
  // -1 against an unknown dim that is not copied: unknown.
  auto other = NodeCase("Reshape").in(type(DType::Float32, {kUnknownDim, 3, 4})).in(ints({-1, 4}));
  EXPECT_EQ(other.infer1(), type(DType::Float32, {kUnknownDim, 4}));
  // Unknown shape value of known length: rank only.
  auto rank = NodeCase("Reshape").in(type(DType::Float32, {2, 3})).in(type(DType::Int64, {3}));
  EXPECT_EQ(rank.infer1(), type(DType::Float32, {kUnknownDim, kUnknownDim, kUnknownDim}));
  auto none = NodeCase("Reshape").in(type(DType::Float32, {2, 3})).in(ir::TensorType{DType::Int64, {}, false});
  EXPECT_FALSE(none.infer1().rankKnown);
}

TEST(TensorOpsReshape, ShapeAttributeBeforeOpset5) {
  auto c = NodeCase("Reshape", 4).attr("shape", std::vector<int64_t>{3, -1}).in(iota32({6}));
  EXPECT_EQ(c.compute1().shape(), (ir::Shape{3, 2}));
}

TEST(TensorOpsFlatten, AxisVariants) {
  EXPECT_EQ(NodeCase("Flatten").in(iota32({2, 3, 4})).compute1().shape(), (ir::Shape{2, 12}));
  EXPECT_EQ(NodeCase("Flatten").attr("axis", int64_t{0}).in(iota32({2, 3, 4})).compute1().shape(), (ir::Shape{1, 24}));
  EXPECT_EQ(NodeCase("Flatten").attr("axis", int64_t{-1}).in(iota32({2, 3, 4})).compute1().shape(), (ir::Shape{6, 4}));
  EXPECT_EQ(NodeCase("Flatten").attr("axis", int64_t{3}).in(iota32({2, 3, 4})).compute1().shape(), (ir::Shape{24, 1}));
  EXPECT_EQ(NodeCase("Flatten").in(type(DType::Float32, {kUnknownDim, 3, 4})).infer1(),
            type(DType::Float32, {kUnknownDim, 12}));
  auto bad = NodeCase("Flatten").attr("axis", int64_t{4}).in(iota32({2, 3, 4}));
  EXPECT_PRED2(hasSubstr, opError([&] { bad.infer(); }), "out of range");
}

// ---- Transpose ------------------------------------------------------------

TEST(TensorOpsTranspose, DefaultReversesAxes) {
  auto c = NodeCase("Transpose").in(iota32({2, 3}));
  EXPECT_EQ(c.infer1(), type(DType::Float32, {3, 2}));
  EXPECT_EQ(vals<float>(c.compute1()), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TensorOpsTranspose, Perm3D) {
  // out[j][k][i] = in[i][j][k] for in of shape [2, 2, 3]: perm [1, 2, 0].
  auto c = NodeCase("Transpose").attr("perm", std::vector<int64_t>{1, 2, 0}).in(iota32({2, 2, 3}));
  ir::Tensor out = c.compute1();
  ASSERT_EQ(out.shape(), (ir::Shape{2, 3, 2}));
  EXPECT_EQ(vals<float>(out), (std::vector<float>{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11}));
  auto bad = NodeCase("Transpose").attr("perm", std::vector<int64_t>{0, 0}).in(iota32({2, 2}));
  EXPECT_PRED2(hasSubstr, opError([&] { bad.infer(); }), "not a permutation");
}

// ---- Squeeze / Unsqueeze --------------------------------------------------

TEST(TensorOpsSqueeze, AttributeAndInputForms) {
  auto attr = NodeCase("Squeeze", 11).attr("axes", std::vector<int64_t>{0, -1}).in(iota32({1, 3, 1}));
  EXPECT_EQ(attr.compute1().shape(), (ir::Shape{3}));
  auto input = NodeCase("Squeeze", 13).in(iota32({1, 3, 1})).in(ints({2}));
  EXPECT_EQ(input.infer1(), type(DType::Float32, {1, 3}));
  EXPECT_EQ(input.compute1().shape(), (ir::Shape{1, 3}));
  auto all = NodeCase("Squeeze", 13).in(iota32({1, 3, 1, 2}));
  EXPECT_EQ(all.compute1().shape(), (ir::Shape{3, 2}));
  auto unknown = NodeCase("Squeeze", 13).in(type(DType::Float32, {1, kUnknownDim}));
  EXPECT_FALSE(unknown.infer1().rankKnown);
  // An empty axes list squeezes every 1, like no axes.
  auto emptyAxes = NodeCase("Squeeze", 11).attr("axes", std::vector<int64_t>{}).in(iota32({1, 2, 1}));
  EXPECT_EQ(emptyAxes.infer1(), type(DType::Float32, {2}));
  auto pending = NodeCase("Squeeze", 13).in(type(DType::Float32, {1, 4, 1})).in(type(DType::Int64, {2}));
  EXPECT_EQ(pending.infer1(), type(DType::Float32, {kUnknownDim}));
  auto bad = NodeCase("Squeeze", 13).in(iota32({2, 3})).in(ints({0}));
  EXPECT_PRED2(hasSubstr, opError([&] { bad.infer(); }), "cannot squeeze axis 0 of size 2");
}

TEST(TensorOpsUnsqueeze, AttributeAndInputForms) {
  auto attr = NodeCase("Unsqueeze", 11).attr("axes", std::vector<int64_t>{0, 3}).in(iota32({2, 3}));
  EXPECT_EQ(attr.compute1().shape(), (ir::Shape{1, 2, 3, 1}));
  auto input = NodeCase("Unsqueeze", 13).in(iota32({2, 3})).in(ints({-1, 1}));
  EXPECT_EQ(input.infer1(), type(DType::Float32, {2, 1, 3, 1}));
  auto scalar = NodeCase("Unsqueeze", 13).in(ir::Tensor::scalar<int64_t>(5)).in(ints({0}));
  ir::Tensor out = scalar.compute1();
  EXPECT_EQ(out.shape(), (ir::Shape{1}));
  EXPECT_EQ(out.data<int64_t>()[0], 5);
  auto dup = NodeCase("Unsqueeze", 13).in(iota32({2})).in(ints({0, 0}));
  EXPECT_PRED2(hasSubstr, opError([&] { dup.infer(); }), "repeated");
  auto unknownAxes = NodeCase("Unsqueeze", 13).in(iota32({2})).in(type(DType::Int64, {2}));
  EXPECT_EQ(unknownAxes.infer1(), type(DType::Float32, {kUnknownDim, kUnknownDim, kUnknownDim}));
}

// ---- Shape / Size / Identity / Dropout ----------------------------------

TEST(TensorOpsShape, FromTypeOnlyWithStartEnd) {
  auto c = NodeCase("Shape").in(type(DType::Float32, {2, 3, 4}));  // no value needed
  EXPECT_EQ(c.infer1(), type(DType::Int64, {3}));
  EXPECT_EQ(vals<int64_t>(c.compute1()), (std::vector<int64_t>{2, 3, 4}));
  auto tail = NodeCase("Shape", 15).attr("start", int64_t{-1}).in(type(DType::Float32, {2, 3, 4}));
  EXPECT_EQ(vals<int64_t>(tail.compute1()), (std::vector<int64_t>{4}));
  auto mid = NodeCase("Shape", 15).attr("start", int64_t{-10}).attr("end", int64_t{-1}).in(type(DType::Float32, {2, 3, 4}));
  EXPECT_EQ(mid.infer1(), type(DType::Int64, {2}));
  EXPECT_EQ(vals<int64_t>(mid.compute1()), (std::vector<int64_t>{2, 3}));
  auto none = NodeCase("Shape", 15).attr("start", int64_t{2}).attr("end", int64_t{1}).in(type(DType::Float32, {2, 3, 4}));
  EXPECT_EQ(none.compute1().shape(), (ir::Shape{0}));
  EXPECT_EQ(NodeCase("Shape").in(type(DType::Float32, {kUnknownDim, 3})).infer1(), type(DType::Int64, {2}));
}

TEST(TensorOpsSize, CountsElements) {
  ir::Tensor n = NodeCase("Size").in(type(DType::Float32, {2, 3, 4})).compute1();
  EXPECT_EQ(n.rank(), 0);
  EXPECT_EQ(n.data<int64_t>()[0], 24);
}

TEST(TensorOpsIdentity, CopiesAnyType) {
  EXPECT_EQ(vals<int64_t>(NodeCase("Identity").in(ints({4, 5})).compute1()), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(NodeCase("Identity").in(strs({1}, {"x"})).compute1().strings(), (std::vector<std::string>{"x"}));
}

TEST(TensorOpsDropout, InferenceIsIdentityWithTrueMask) {
  auto c = NodeCase("Dropout", 13).in(f32({3}, {1, -2, 3})).outputs(2);
  auto types = c.infer();
  EXPECT_EQ(types[1], type(DType::Bool, {3}));
  auto outs = c.compute();
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(vals<float>(outs[0]), (std::vector<float>{1, -2, 3}));
  EXPECT_EQ(vals<bool>(outs[1]), (std::vector<bool>{true, true, true}));
  // Opset 7: the mask has the data's type.
  EXPECT_EQ(NodeCase("Dropout", 7).in(f32({1}, {1})).outputs(2).infer()[1].dtype, DType::Float32);
  auto train = NodeCase("Dropout", 13)
                   .in(f32({1}, {1}))
                   .in(ir::Tensor::scalar<float>(0.5f))
                   .in(ir::Tensor::scalar<bool>(true));
  EXPECT_PRED2(hasSubstr, opError([&] { train.compute(); }), "training-mode Dropout is not supported");
  EXPECT_PRED2(hasSubstr, opError([&] { train.infer(); }), "training-mode");
  // Training mode with ratio 0 keeps everything: the identity.
  auto keepAll = NodeCase("Dropout", 13)
                     .in(f32({2}, {4, -5}))
                     .in(ir::Tensor::scalar<float>(0.0f))
                     .in(ir::Tensor::scalar<bool>(true))
                     .outputs(2);
  const auto kept = keepAll.compute();
  EXPECT_EQ(vals<float>(kept[0]), (std::vector<float>{4, -5}));
  EXPECT_EQ(vals<bool>(kept[1]), (std::vector<bool>{true, true}));
  auto notTrain = NodeCase("Dropout", 13).in(f32({1}, {7})).omitted().in(ir::Tensor::scalar<bool>(false));
  EXPECT_EQ(vals<float>(notTrain.compute1()), (std::vector<float>{7}));
}

// ---- Constant / ConstantOfShape / Range ---------------------------------

TEST(TensorOpsConstant, EveryValueAttribute) {
  auto t = NodeCase("Constant").attr("value", f32({2}, {1.5f, 2.5f})).outputs(1);
  EXPECT_EQ(t.infer1(), type(DType::Float32, {2}));
  EXPECT_EQ(vals<float>(t.compute1()), (std::vector<float>{1.5f, 2.5f}));
  EXPECT_EQ(NodeCase("Constant").attr("value_float", 3.0f).compute1().data<float>()[0], 3.0f);
  EXPECT_EQ(vals<float>(NodeCase("Constant").attr("value_floats", std::vector<float>{1, 2}).compute1()), (std::vector<float>{1, 2}));
  ir::Tensor i = NodeCase("Constant").attr("value_int", int64_t{-4}).compute1();
  EXPECT_EQ(i.type(), type(DType::Int64, {}));
  EXPECT_EQ(i.data<int64_t>()[0], -4);
  EXPECT_EQ(vals<int64_t>(NodeCase("Constant").attr("value_ints", std::vector<int64_t>{7, 8}).compute1()), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(NodeCase("Constant").attr("value_string", std::string("hi")).compute1().strings(), (std::vector<std::string>{"hi"}));
  EXPECT_PRED2(hasSubstr, opError([] { NodeCase("Constant").infer(); }), "no value");
}

TEST(TensorOpsConstantOfShape, DefaultAndTypedValues) {
  ir::Tensor z = NodeCase("ConstantOfShape").in(ints({2, 3})).compute1();
  EXPECT_EQ(z.type(), type(DType::Float32, {2, 3}));
  EXPECT_EQ(vals<float>(z), std::vector<float>(6, 0.0f));
  auto c = NodeCase("ConstantOfShape").attr("value", i64({1}, {7})).in(ints({5}));
  EXPECT_EQ(vals<int64_t>(c.compute1()), std::vector<int64_t>(5, 7));
  ir::Tensor s = NodeCase("ConstantOfShape").attr("value", i64({1}, {1})).in(ints({})).compute1();
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(NodeCase("ConstantOfShape").in(type(DType::Int64, {2})).infer1(),
            type(DType::Float32, {kUnknownDim, kUnknownDim}));
  EXPECT_PRED2(hasSubstr, opError([] { NodeCase("ConstantOfShape").in(ints({-2})).compute(); }), "negative");
}

TEST(TensorOpsRange, IntegerAndFloat) {
  auto i = NodeCase("Range")
               .in(ir::Tensor::scalar<int64_t>(10))
               .in(ir::Tensor::scalar<int64_t>(1))
               .in(ir::Tensor::scalar<int64_t>(-3));
  EXPECT_EQ(i.infer1(), type(DType::Int64, {3}));
  EXPECT_EQ(vals<int64_t>(i.compute1()), (std::vector<int64_t>{10, 7, 4}));
  // numpy: arange(1.0, 2.0, 0.3, dtype=float32).
  auto f = NodeCase("Range").in(ir::Tensor::scalar<float>(1)).in(ir::Tensor::scalar<float>(2)).in(ir::Tensor::scalar<float>(0.3f));
  auto fv = vals<float>(f.compute1());
  ASSERT_EQ(fv.size(), 4u);
  EXPECT_FLOAT_EQ(fv[3], 1.9f);
  auto empty = NodeCase("Range").in(ir::Tensor::scalar<int32_t>(5)).in(ir::Tensor::scalar<int32_t>(1)).in(ir::Tensor::scalar<int32_t>(2));
  EXPECT_EQ(empty.compute1().shape(), (ir::Shape{0}));
  auto unknown = NodeCase("Range").in(type(DType::Int64, {})).in(ir::Tensor::scalar<int64_t>(1)).in(ir::Tensor::scalar<int64_t>(1));
  EXPECT_EQ(unknown.infer1(), type(DType::Int64, {kUnknownDim}));
  auto zero = NodeCase("Range").in(ir::Tensor::scalar<int64_t>(0)).in(ir::Tensor::scalar<int64_t>(1)).in(ir::Tensor::scalar<int64_t>(0));
  EXPECT_PRED2(hasSubstr, opError([&] { zero.compute(); }), "delta cannot be 0");
  auto huge = NodeCase("Range").in(ir::Tensor::scalar<int64_t>(kMin)).in(ir::Tensor::scalar<int64_t>(kMax)).in(ir::Tensor::scalar<int64_t>(1));
  EXPECT_PRED2(hasSubstr, opError([&] { huge.infer(); }), "too many");
}

// ---- Cast -----------------------------------------------------------------

TEST(TensorOpsCast, FloatToIntTruncatesAndSaturates) {
  auto c = NodeCase("Cast").attr("to", int64_t{6}).in(f32({5}, {1.5f, -1.7f, 300.f, 2.5e10f, NAN}));
  EXPECT_EQ(c.infer1(), type(DType::Int32, {5}));
  EXPECT_EQ(vals<int32_t>(c.compute1()), (std::vector<int32_t>{1, -1, 300, std::numeric_limits<int32_t>::max(), 0}));
}

TEST(TensorOpsCast, Float16RoundTrip) {
  // numpy: float32 -> float16 bit patterns.
  auto h = NodeCase("Cast").attr("to", int64_t{10}).in(f32({6}, {1.0f, 0.1f, 65504.f, 1e5f, -2.5f, 6e-8f})).compute1();
  ASSERT_EQ(h.dtype(), DType::Float16);
  std::vector<uint16_t> bits(6);
  std::memcpy(bits.data(), h.raw(), 12);
  EXPECT_EQ(bits, (std::vector<uint16_t>{15360, 11878, 31743, 31744, 49408, 1}));
  ir::Tensor back = NodeCase("Cast").attr("to", int64_t{1}).in(h).compute1();
  auto f = vals<float>(back);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], 0.0999755859375f);
  EXPECT_EQ(f[2], 65504.f);
  EXPECT_TRUE(std::isinf(f[3]));
  EXPECT_EQ(f[4], -2.5f);
}

TEST(TensorOpsCast, BoolAndIntegers) {
  auto b = NodeCase("Cast").attr("to", int64_t{9}).in(i64({3}, {0, 36, -1})).compute1();
  EXPECT_EQ(vals<bool>(b), (std::vector<bool>{false, true, true}));
  auto f = NodeCase("Cast").attr("to", int64_t{1}).in(b).compute1();
  EXPECT_EQ(vals<float>(f), (std::vector<float>{0, 1, 1}));
  auto u8 = NodeCase("Cast").attr("to", int64_t{2}).in(i64({2}, {257, -1})).compute1();
  EXPECT_EQ(vals<uint8_t>(u8), (std::vector<uint8_t>{1, 255}));
  auto fu8 = NodeCase("Cast").attr("to", int64_t{2}).in(f32({3}, {-1.f, 255.9f, 1e9f})).compute1();
  EXPECT_EQ(vals<uint8_t>(fu8), (std::vector<uint8_t>{255, 255, 255}));
  auto big = NodeCase("Cast").attr("to", int64_t{11}).in(ir::Tensor::scalar<int64_t>(int64_t{1} << 53)).compute1();
  EXPECT_EQ(big.data<double>()[0], 9007199254740992.0);
  EXPECT_PRED2(hasSubstr, opError([] { NodeCase("Cast").attr("to", int64_t{99}).in(iota32({1})).infer(); }), "unsupported target type 99");
}

TEST(TensorOpsCast, Strings) {
  auto num = NodeCase("Cast").attr("to", int64_t{1}).in(strs({4}, {"3.5", "1e-2", "-INF", "+inf"})).compute1();
  auto v = vals<float>(num);
  EXPECT_EQ(v[0], 3.5f);
  EXPECT_FLOAT_EQ(v[1], 0.01f);
  EXPECT_TRUE(std::isinf(v[2]) && v[2] < 0);
  EXPECT_TRUE(std::isinf(v[3]) && v[3] > 0);
  auto big = NodeCase("Cast").attr("to", int64_t{7}).in(strs({1}, {"9007199254740993"})).compute1();
  EXPECT_EQ(big.data<int64_t>()[0], 9007199254740993);
  // Shortest round-trip text: float32(314.15926) prints as 314.15927 (as numpy does).
  auto text = NodeCase("Cast").attr("to", int64_t{8}).in(f32({3}, {314.15926f, -2.f, 0.5f})).compute1();
  EXPECT_EQ(text.strings(), (std::vector<std::string>{"314.15927", "-2", "0.5"}));
  EXPECT_EQ(NodeCase("Cast").attr("to", int64_t{8}).in(ints({-12})).compute1().strings(), (std::vector<std::string>{"-12"}));
  EXPECT_PRED2(hasSubstr, opError([] { NodeCase("Cast").attr("to", int64_t{1}).in(strs({1}, {"hello"})).compute(); }), "'hello'");
}

// ---- Pad ------------------------------------------------------------------

TEST(TensorOpsPad, ConstantWithValueInput) {
  auto c = NodeCase("Pad", 13).in(f32({2, 2}, {1, 2, 3, 4})).in(ints({0, 1, 1, 0})).in(ir::Tensor::scalar<float>(9));
  EXPECT_EQ(c.infer1(), type(DType::Float32, {3, 3}));
  EXPECT_EQ(vals<float>(c.compute1()), (std::vector<float>{9, 1, 2, 9, 3, 4, 9, 9, 9}));
}

TEST(TensorOpsPad, Reflect) {
  // numpy: pad(arange(1, 7).reshape(2, 3), ((1, 1), (2, 2)), mode='reflect').
  auto c = NodeCase("Pad", 13).attr("mode", std::string("reflect")).in(f32({2, 3}, {1, 2, 3, 4, 5, 6})).in(ints({1, 2, 1, 2}));
  ir::Tensor out = c.compute1();
  ASSERT_EQ(out.shape(), (ir::Shape{4, 7}));
  EXPECT_EQ(vals<float>(out), (std::vector<float>{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2,
                                            3, 2, 1}));
  // Pads wider than the input keep mirroring, as numpy does.
  auto wide = NodeCase("Pad", 13).attr("mode", std::string("reflect")).in(f32({3}, {1, 2, 3})).in(ints({5, 4}));
  EXPECT_EQ(vals<float>(wide.compute1()), (std::vector<float>{2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}));
}

TEST(TensorOpsPad, Edge) {
  // numpy: pad(arange(1, 7).reshape(2, 3), ((0, 1), (2, 1)), mode='edge').
  auto c = NodeCase("Pad", 11).attr("mode", std::string("edge")).in(f32({2, 3}, {1, 2, 3, 4, 5, 6})).in(ints({0, 2, 1, 1}));
  ir::Tensor out = c.compute1();
  ASSERT_EQ(out.shape(), (ir::Shape{3, 6}));
  EXPECT_EQ(vals<float>(out), (std::vector<float>{1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6, 4, 4, 4, 5, 6, 6}));
}

TEST(TensorOpsPad, NegativePadsCropAndAttributeForm) {
  // Opset 2 form: pads and value are attributes. Crop one column at the
  // start, add two 9s at the end.
  auto c = NodeCase("Pad", 2)
               .attr("pads", std::vector<int64_t>{0, -1, 0, 2})
               .attr("value", 9.0f)
               .in(f32({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(c.infer1(), type(DType::Float32, {2, 4}));
  EXPECT_EQ(vals<float>(c.compute1()), (std::vector<float>{2, 3, 9, 9, 5, 6, 9, 9}));
  auto tooMuch = NodeCase("Pad", 13).in(iota32({2})).in(ints({-2, -1}));
  EXPECT_PRED2(hasSubstr, opError([&] { tooMuch.infer(); }), "negative");
}

TEST(TensorOpsPad, AxesInputAndIntegerData) {
  auto c = NodeCase("Pad", 18).in(i64({2, 2}, {1, 2, 3, 4})).in(ints({1, 0})).in(ir::Tensor::scalar<int64_t>(-1)).in(ints({-1}));
  EXPECT_EQ(c.infer1(), type(DType::Int64, {2, 3}));
  EXPECT_EQ(vals<int64_t>(c.compute1()), (std::vector<int64_t>{-1, 1, 2, -1, 3, 4}));
}

// ---- DepthToSpace / SpaceToDepth ----------------------------------------

TEST(TensorOpsDepthToSpace, DcrAndCrd) {
  // numpy, per the ONNX spec's reshape/transpose definition, on arange(16) as [1, 8, 1, 2].
  auto dcr = NodeCase("DepthToSpace").attr("blocksize", int64_t{2}).in(iota32({1, 8, 1, 2}));
  EXPECT_EQ(dcr.infer1(), type(DType::Float32, {1, 2, 2, 4}));
  EXPECT_EQ(vals<float>(dcr.compute1()), (std::vector<float>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  auto crd = NodeCase("DepthToSpace").attr("blocksize", int64_t{2}).attr("mode", std::string("CRD")).in(iota32({1, 8, 1, 2}));
  EXPECT_EQ(vals<float>(crd.compute1()), (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}));
  auto bad = NodeCase("DepthToSpace").attr("blocksize", int64_t{2}).in(iota32({1, 6, 1, 1}));
  EXPECT_PRED2(hasSubstr, opError([&] { bad.infer(); }), "not divisible");
}

TEST(TensorOpsSpaceToDepth, Blocks) {
  // numpy on arange(16) as [1, 1, 4, 4].
  auto c = NodeCase("SpaceToDepth").attr("blocksize", int64_t{2}).in(iota32({1, 1, 4, 4}));
  EXPECT_EQ(c.infer1(), type(DType::Float32, {1, 4, 2, 2}));
  EXPECT_EQ(vals<float>(c.compute1()), (std::vector<float>{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));
}

// ---- StringNormalizer (the ONNX conformance cases test_strnorm_*) --------

ir::Tensor normalize(const ir::Tensor& in, const std::string& action, int64_t caseSensitive,
                     std::vector<std::string> stopwords) {
  auto c = NodeCase("StringNormalizer", 10).in(in).attr("is_case_sensitive", caseSensitive);
  if (!action.empty()) c.attr("case_change_action", action);
  if (!stopwords.empty()) c.attr("stopwords", std::move(stopwords));
  return c.compute1();
}

TEST(TensorOpsStringNormalizer, ConformanceCases) {
  const ir::Tensor days = strs({4}, {"monday", "tuesday", "wednesday", "thursday"});
  ir::Tensor lower = normalize(days, "LOWER", 1, {"monday"});
  EXPECT_EQ(lower.shape(), (ir::Shape{3}));
  EXPECT_EQ(lower.strings(), (std::vector<std::string>{"tuesday", "wednesday", "thursday"}));
  EXPECT_EQ(normalize(days, "", 1, {"monday"}).strings(), (std::vector<std::string>{"tuesday", "wednesday", "thursday"}));
  EXPECT_EQ(normalize(days, "UPPER", 1, {"monday"}).strings(), (std::vector<std::string>{"TUESDAY", "WEDNESDAY", "THURSDAY"}));

  ir::Tensor empty = normalize(strs({2}, {"monday", "monday"}), "UPPER", 0, {"monday"});
  EXPECT_EQ(empty.shape(), (ir::Shape{1}));
  EXPECT_EQ(empty.strings(), (std::vector<std::string>{""}));

  ir::Tensor two = normalize(strs({1, 6}, {"Monday", "tuesday", "wednesday", "Monday", "tuesday", "wednesday"}), "UPPER",
                             0, {"monday"});
  EXPECT_EQ(two.shape(), (ir::Shape{1, 4}));
  EXPECT_EQ(two.strings(), (std::vector<std::string>{"TUESDAY", "WEDNESDAY", "TUESDAY", "WEDNESDAY"}));

  ir::Tensor same = normalize(strs({2}, {"monday", "tuesday"}), "", 1, {});
  EXPECT_EQ(same.strings(), (std::vector<std::string>{"monday", "tuesday"}));
}

TEST(TensorOpsStringNormalizer, ShapesAndErrors) {
  // Case-sensitive stopwords keep differently cased words.
  EXPECT_EQ(normalize(strs({2}, {"Monday", "monday"}), "", 1, {"monday"}).strings(), (std::vector<std::string>{"Monday"}));
  ir::Tensor emptyTwoDim = normalize(strs({1, 1}, {"MONDAY"}), "LOWER", 0, {"monday"});
  EXPECT_EQ(emptyTwoDim.shape(), (ir::Shape{1, 1}));
  auto c = NodeCase("StringNormalizer", 10).attr("stopwords", std::vector<std::string>{"a"}).in(type(DType::String, {1, 5}));
  EXPECT_EQ(c.infer1(), type(DType::String, {1, kUnknownDim}));
  auto bad = NodeCase("StringNormalizer", 10).in(strs({2, 2}, {"a", "b", "c", "d"}));
  EXPECT_PRED2(hasSubstr, opError([&] { bad.infer(); }), "[C] or [1, C]");
}

// ---- Shape sub-graph folding through the type-inference driver -----------

TEST(TensorOpsFolding, ShapeGatherUnsqueezeConcatReshape) {
  // Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])) on x: [2, 3, 4].
  ir::Graph g;
  g.opsetVersion = 13;
  auto value = [&](const std::string& name) { return g.addValue(name); };
  const ir::ValueId x = g.addValue("x", type(DType::Float32, {2, 3, 4}));
  g.addInput(x);
  const ir::ValueId zero = value("zero"), minus1 = value("minus1"), axes = value("axes");
  g.value(zero).constant = ir::Tensor::scalar<int64_t>(0);
  g.value(zero).type = g.value(zero).constant->type();
  g.value(minus1).constant = ints({-1});
  g.value(minus1).type = g.value(minus1).constant->type();
  g.value(axes).constant = ints({0});
  g.value(axes).type = g.value(axes).constant->type();
  const ir::ValueId shape = value("shape"), batch = value("batch"), batch1 = value("batch1"), target = value("target"),
                    y = value("y");
  auto node = [&](const std::string& op, std::vector<ir::ValueId> in, ir::ValueId out, ir::Attributes attrs = {}) {
    ir::Node n;
    n.name = op;
    n.opType = op;
    n.inputs = std::move(in);
    n.outputs = {out};
    n.attrs = std::move(attrs);
    g.addNode(std::move(n));
  };
  ir::Attributes axis0;
  axis0.set("axis", int64_t{0});
  node("Shape", {x}, shape);
  node("Gather", {shape, zero}, batch, axis0);
  node("Unsqueeze", {batch, axes}, batch1);
  node("Concat", {batch1, minus1}, target, axis0);
  node("Reshape", {x, target}, y);
  g.addOutput(y);
  auto errors = inferTypes(g);
  ASSERT_TRUE(errors.empty()) << errors.front().message;
  EXPECT_EQ(g.value(target).type, type(DType::Int64, {2}));
  EXPECT_EQ(g.value(y).type, type(DType::Float32, {2, 12}));
}

}  // namespace
}  // namespace rammer::ops::testing
