#include "core/ops/broadcast.h"

#include <gtest/gtest.h>

#include "tests/core/ops/math_test_util.h"

namespace rammer::ops {
namespace {

using ir::kUnknownDim;
using ir::Shape;
using mathtest::expectOpError;

constexpr int64_t U = kUnknownDim;

TEST(BroadcastShapes, NumpyRules) {
  EXPECT_EQ(broadcastShapes(Shape{2, 3, 4}, Shape{3, 1}), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcastShapes(Shape{}, Shape{5}), (Shape{5}));
  EXPECT_EQ(broadcastShapes(Shape{1, 5}, Shape{4, 1}), (Shape{4, 5}));
  EXPECT_EQ(broadcastShapes(Shape{2, 1}, Shape{1, 0}), (Shape{2, 0}));
  EXPECT_EQ(broadcastShapes(Shape{}, Shape{}), (Shape{}));
  const Shape three[3] = {{8, 1, 6, 1}, {7, 1, 5}, {1}};
  EXPECT_EQ(broadcastShapes(three), (Shape{8, 7, 6, 5}));
}

TEST(BroadcastShapes, UnknownDims) {
  EXPECT_EQ(broadcastShapes(Shape{U, 3}, Shape{4, 1, 1}), (Shape{4, U, 3}));
  EXPECT_EQ(broadcastShapes(Shape{U}, Shape{5}), (Shape{5}));  // unknown must be 1 or 5
  EXPECT_EQ(broadcastShapes(Shape{U}, Shape{1}), (Shape{U}));
  EXPECT_EQ(broadcastShapes(Shape{U}, Shape{U}), (Shape{U}));
  EXPECT_EQ(broadcastShapes(Shape{2, U}, Shape{U, 7}), (Shape{2, 7}));
}

TEST(BroadcastShapes, IncompatibleNamesBothShapes) {
  expectOpError([] { broadcastShapes(Shape{2, 3}, Shape{4}); }, {"[2, 3]", "[4]"});
  expectOpError([] { broadcastShapes(Shape{U, 3}, Shape{2, 5}); }, {"[?, 3]", "[2, 5]"});
}

TEST(BroadcastTypes, UnknownRankGivesUnknownRank) {
  const ir::TensorType types[2] = {{ir::DType::Float32, {2, 3}, true}, {ir::DType::Float32, {}, false}};
  ir::TensorType t = broadcastTypes(types, ir::DType::Bool);
  EXPECT_FALSE(t.rankKnown);
  EXPECT_EQ(t.dtype, ir::DType::Bool);
  const ir::TensorType bad[3] = {{ir::DType::Float32, {2, 3}, true}, {ir::DType::Float32, {}, false},
                                 {ir::DType::Float32, {4}, true}};
  expectOpError([&] { broadcastTypes(bad, ir::DType::Float32); }, {"[2, 3]", "[4]"});
}

TEST(BroadcastShapes, Unidirectional) {
  EXPECT_NO_THROW(checkUnidirectional(Shape{3, 1, 1}, Shape{2, 3, 4, 5}, "slope"));
  EXPECT_NO_THROW(checkUnidirectional(Shape{U}, Shape{2, 3}, "slope"));
  expectOpError([] { checkUnidirectional(Shape{2, 3, 4}, Shape{3, 4}, "slope"); }, {"slope", "[2, 3, 4]", "[3, 4]"});
  expectOpError([] { checkUnidirectional(Shape{3}, Shape{2, 3, 4}, "slope"); }, {"[3]", "[2, 3, 4]"});
}

// Element offset of `idx` (an index into `out`) in a tensor of shape `s`,
// computed the textbook way to check the plan against.
int64_t naiveOffset(const Shape& out, const Shape& s, int64_t flat) {
  std::vector<int64_t> idx(out.size());
  for (size_t d = out.size(); d-- > 0;) {
    idx[d] = flat % out[d];
    flat /= out[d];
  }
  int64_t off = 0;
  for (size_t j = 0; j < s.size(); ++j) {
    const int64_t i = idx[out.size() - s.size() + j];
    off = off * s[j] + (s[j] == 1 ? 0 : i);
  }
  return off;
}

TEST(BroadcastPlan, MatchesNaiveIndexing) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {}},        {{2, 3, 4}, {4}},       {{2, 3, 4}, {3, 1}},
      {{1, 3, 1}, {2, 1, 5}}, {{2, 1, 4, 1}, {3, 1, 2}}, {{5}, {7, 1}},       {{}, {}},
      {{1, 1}, {1}},          {{2, 3, 4, 5}, {3, 1, 1}}, {{4, 1, 1}, {1, 1, 6}}, {{1, 6}, {6, 1}},
  };
  for (const auto& [sa, sb] : cases) {
    BroadcastPlan plan(sa, sb);
    const Shape out = broadcastShapes(sa, sb);
    ASSERT_EQ(plan.outShape(), out);
    const int64_t na = ir::numElements(sa), nb = ir::numElements(sb), n = ir::numElements(out);
    std::vector<int64_t> a(static_cast<size_t>(na)), b(static_cast<size_t>(nb)), got(static_cast<size_t>(n), -1);
    for (int64_t i = 0; i < na; ++i) a[static_cast<size_t>(i)] = i;
    for (int64_t i = 0; i < nb; ++i) b[static_cast<size_t>(i)] = i;
    broadcastBinary(plan, a.data(), b.data(), got.data(), [](int64_t x, int64_t y) { return x * 1000 + y; });
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(got[static_cast<size_t>(i)], naiveOffset(out, sa, i) * 1000 + naiveOffset(out, sb, i))
          << ir::shapeToString(sa) << " + " << ir::shapeToString(sb) << " at " << i;
  }
}

TEST(BroadcastPlan, ThreeInputs) {
  const Shape shapes[3] = {{2, 1, 3}, {4, 1}, {1}};
  BroadcastPlan plan(shapes);
  ASSERT_EQ(plan.outShape(), (Shape{2, 4, 3}));
  std::vector<int> a{0, 1, 2, 3, 4, 5}, b{0, 1, 2, 3}, c{7};
  std::vector<int> out(24);
  broadcastTernary(plan, a.data(), b.data(), c.data(), out.data(), [](int x, int y, int z) { return x * 100 + y * 10 + z; });
  for (int64_t i = 0; i < 24; ++i)
    EXPECT_EQ(out[static_cast<size_t>(i)], naiveOffset({2, 4, 3}, {2, 1, 3}, i) * 100 +
                                               naiveOffset({2, 4, 3}, {4, 1}, i) * 10 + 7);
}

// Same-shape and scalar operands must collapse to one long run (the fast path).
TEST(BroadcastPlan, CollapsesToLongRuns) {
  auto runs = [](const Shape& a, const Shape& b) {
    std::vector<int64_t> lengths;
    BroadcastPlan(a, b).forEachRun([&](int64_t, const int64_t*, int64_t n) { lengths.push_back(n); });
    return lengths;
  };
  EXPECT_EQ(runs({2, 3, 4}, {2, 3, 4}), (std::vector<int64_t>{24}));
  EXPECT_EQ(runs({2, 3, 4}, {}), (std::vector<int64_t>{24}));
  EXPECT_EQ(runs({1, 1}, {1}), (std::vector<int64_t>{1}));
  EXPECT_EQ(runs({2, 3, 4, 5}, {3, 1, 1}), (std::vector<int64_t>(6, 20)));
  EXPECT_TRUE(runs({0, 3}, {3}).empty());
  BroadcastPlan same(Shape{1000, 1000}, Shape{1000, 1000});
  EXPECT_EQ(same.innerStride(0), 1);
  EXPECT_EQ(same.innerStride(1), 1);
  BroadcastPlan scalar(Shape{1000, 1000}, Shape{1});
  EXPECT_EQ(scalar.innerStride(1), 0);
}

TEST(BroadcastPlan, RejectsUnknownOrIncompatible) {
  expectOpError([] { BroadcastPlan(Shape{U, 3}, Shape{3}); }, {"[?, 3]"});
  expectOpError([] { BroadcastPlan(Shape{2, 3}, Shape{2}); }, {"[2, 3]", "[2]"});
}

TEST(DispatchNumeric, RejectsOtherTypes) {
  EXPECT_EQ(dispatchNumeric(ir::DType::Int32, "X", [](auto t) { return sizeof(t); }), 4u);
  EXPECT_EQ(dispatchNumeric<true>(ir::DType::Bool, "X", [](auto t) { return sizeof(t); }), 1u);
  expectOpError([] { dispatchNumeric(ir::DType::Bool, "Add", [](auto t) { return sizeof(t); }); }, {"Add", "bool"});
  expectOpError([] { dispatchNumeric(ir::DType::Float16, "Add", [](auto t) { return sizeof(t); }); }, {"float16"});
}

}  // namespace
}  // namespace rammer::ops
