#include "viz/models/node_search.h"

#include <gtest/gtest.h>

#include "tests/viz/viz_test_graphs.h"

namespace rammer::viz {
namespace {

using Ids = std::vector<ir::NodeId>;

// diamond(): conv 0 [1,3,8,8]->[1,4,8,8], relu_a 1, sigmoid_b 2, add_c 3.
TEST(NodeSearch, ByNameCaseInsensitive) {
  const ir::Graph g = viztest::diamond();
  EXPECT_EQ(findNodes(g, "RELU_A"), Ids({1}));
  EXPECT_EQ(findNodes(g, "_"), Ids({1, 2, 3}));
  EXPECT_EQ(findNodes(g, "name:conv"), Ids({0}));
  EXPECT_EQ(findNodes(g, "  sigmoid  "), Ids({2}));
}

TEST(NodeSearch, ByOpType) {
  const ir::Graph g = viztest::diamond();
  EXPECT_EQ(findNodes(g, "op:Conv"), Ids({0}));
  EXPECT_EQ(findNodes(g, "OP:add"), Ids({3}));
  // The name "sigmoid_b" would match "sigmoid", the op field alone too.
  EXPECT_EQ(findNodes(g, "op:sigmoid"), Ids({2}));
  EXPECT_EQ(findNodes(g, "op:relu_a"), Ids({}));  // a name, not an op type
}

TEST(NodeSearch, ByShape) {
  const ir::Graph g = viztest::diamond();
  EXPECT_EQ(findNodes(g, "1x3x8x8"), Ids({0}));        // only conv reads x
  EXPECT_EQ(findNodes(g, "4x8x8"), Ids({0, 1, 2, 3}));  // contiguous dims
  EXPECT_EQ(findNodes(g, "4, 3, 3, 3"), Ids({0}));     // the weight
  EXPECT_EQ(findNodes(g, "[4,3,3,3]"), Ids({0}));
  EXPECT_EQ(findNodes(g, "[3,3,3]"), Ids({}));          // brackets: whole shape
  EXPECT_EQ(findNodes(g, "8\u00D78"), Ids({0, 1, 2, 3}));
  EXPECT_EQ(findNodes(g, "shape:3x8x8"), Ids({0}));
  EXPECT_EQ(findNodes(g, "8x4"), Ids({}));              // order matters
}

TEST(NodeSearch, TextWithDigitsIsANameNotAShape) {
  ir::Graph g = viztest::grid(2, 2);
  EXPECT_EQ(findNodes(g, "cell_1_0"), Ids({2}));
  EXPECT_EQ(findNodes(g, "shape:cell"), Ids({}));
  // "16" is both a shape dim of every value and in no name.
  EXPECT_EQ(findNodes(g, "16"), Ids({0, 1, 2, 3}));
}

TEST(NodeSearch, FusedMembersMatchByOpType) {
  const ir::Graph g = viztest::fusedDiamond();  // conv 0, add_c+fused 1
  EXPECT_EQ(findNodes(g, "op:Relu"), Ids({1}));
  EXPECT_EQ(findNodes(g, "op:FusedElementwise"), Ids({1}));
  EXPECT_EQ(findNodes(g, "+fused"), Ids({1}));
}

TEST(NodeSearch, EmptyOrUnmatchedFindsNothing) {
  const ir::Graph g = viztest::diamond();
  EXPECT_TRUE(findNodes(g, "").empty());
  EXPECT_TRUE(findNodes(g, "   ").empty());
  EXPECT_TRUE(findNodes(g, "op:").empty());
  EXPECT_TRUE(findNodes(g, "nothing_like_this").empty());
  EXPECT_TRUE(findNodes(g, "99999999999999999999999").empty());  // no overflow
}

}  // namespace
}  // namespace rammer::viz
