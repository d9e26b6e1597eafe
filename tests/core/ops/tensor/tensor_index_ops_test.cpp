// GatherElements and ScatterND (issue #16 item 1) against hand-written
// answers: along each axis, negative indices, slices and single elements,
// the reductions; out-of-range indices and mismatched shapes are named.
#include <gtest/gtest.h>

#include "tests/core/ops/tensor_test_util.h"

namespace rammer::ops::testing {
namespace {

std::vector<float> floats(const ir::Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

std::string errorOf(const NodeCase& c) {
  try {
    c.compute();
  } catch (const OpError& e) {
    return e.what();
  }
  return "";
}

TEST(GatherElementsOp, GathersAlongEitherAxisWithNegativeIndices) {
  // data = [[1 2], [3 4]]
  const ir::Tensor data = f32({2, 2}, {1, 2, 3, 4});
  const ir::Tensor byRow = NodeCase("GatherElements").attr("axis", int64_t{1}).in(data).in(i64({2, 2}, {0, 0, 1, 0})).compute().at(0);
  EXPECT_EQ(floats(byRow), (std::vector<float>{1, 1, 4, 3}));
  const ir::Tensor byCol =
      NodeCase("GatherElements").in(f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})).in(i64({2, 3}, {1, 2, 0, 2, 0, -1})).compute().at(0);
  EXPECT_EQ(byCol.shape(), (ir::Shape{2, 3}));
  EXPECT_EQ(floats(byCol), (std::vector<float>{4, 8, 3, 7, 2, 9}));
  EXPECT_NE(errorOf(NodeCase("GatherElements").in(data).in(i64({1, 2}, {2, 0}))).find("index 2 is out of range"),
            std::string::npos);
}

TEST(ScatterNDOp, WritesSlicesAndElementsWithEachReduction) {
  // Rows 0 and 2 of a [4, 2] replaced.
  const ir::Tensor data = f32({4, 2}, {1, 1, 2, 2, 3, 3, 4, 4});
  const ir::Tensor rows =
      NodeCase("ScatterND").in(data).in(i64({2, 1}, {0, -2})).in(f32({2, 2}, {9, 8, 7, 6})).compute().at(0);
  EXPECT_EQ(floats(rows), (std::vector<float>{9, 8, 2, 2, 7, 6, 4, 4}));
  // Single elements, added and multiplied.
  const ir::Tensor upd = f32({2}, {10, 3});
  const ir::Tensor idx = i64({2, 2}, {0, 1, 3, 0});
  EXPECT_EQ(floats(NodeCase("ScatterND").attr("reduction", std::string("add")).in(data).in(idx).in(upd).compute().at(0)),
            (std::vector<float>{1, 11, 2, 2, 3, 3, 7, 4}));
  EXPECT_EQ(floats(NodeCase("ScatterND").attr("reduction", std::string("mul")).in(data).in(idx).in(upd).compute().at(0)),
            (std::vector<float>{1, 10, 2, 2, 3, 3, 12, 4}));
  EXPECT_NE(errorOf(NodeCase("ScatterND").in(data).in(i64({1, 1}, {4})).in(f32({1, 2}, {0, 0}))).find("index 4 is out of range"),
            std::string::npos);
  EXPECT_NE(errorOf(NodeCase("ScatterND").in(data).in(i64({1, 1}, {0})).in(f32({1, 3}, {0, 0, 0})))
                .find("updates have shape [1, 3], expected [1, 2]"),
            std::string::npos);
  EXPECT_THROW(NodeCase("ScatterND").attr("reduction", std::string("sum")).in(data).in(idx).in(upd).infer(), OpError);
}

}  // namespace
}  // namespace rammer::ops::testing
