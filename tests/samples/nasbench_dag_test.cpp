// NAS-Bench-101 cells: the sampler's constraints and the channel rule.
#include "samples/zoo/nasbench_dag.h"

#include <gtest/gtest.h>

#include "samples/zoo/nasbench_cells.h"
#include "tests/samples/sample_helpers.h"

namespace rammer {
namespace {

using samples::NasBenchCell;
using samples::NasBenchOp;

NasBenchCell cellWithEdges(int n, std::initializer_list<std::pair<int, int>> edges) {
  NasBenchCell c;
  c.edge.assign(static_cast<size_t>(n), std::vector<bool>(static_cast<size_t>(n), false));
  for (auto [i, j] : edges) c.edge[i][j] = true;
  c.ops.assign(static_cast<size_t>(n - 2), NasBenchOp::Conv3x3);
  return c;
}

TEST(NasBenchChannels, SplitsTheOutputEvenlyOverItsFeeders) {
  // 0->1->2->3->4 with 1->4 and 0->4: vertices 1 and 3 feed the output.
  const NasBenchCell c = cellWithEdges(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {1, 4}, {0, 4}});
  EXPECT_EQ(samples::nasBenchVertexChannels(c, 16, 64), (std::vector<int64_t>{16, 32, 32, 32, 64}));
  // 65 = 33 + 32: the remainder goes to the first feeder; vertex 2 takes
  // the width of vertex 3, which it feeds.
  EXPECT_EQ(samples::nasBenchVertexChannels(c, 16, 65), (std::vector<int64_t>{16, 33, 32, 32, 65}));
}

TEST(NasBenchChannels, InnerVerticesTakeTheWidestTheyFeed) {
  // 1 feeds 2 and 3; 2, 3, 4 feed the output: 64 = 22 + 21 + 21.
  const NasBenchCell c = cellWithEdges(6, {{0, 1}, {1, 2}, {1, 3}, {2, 5}, {3, 5}, {4, 5}, {0, 4}});
  EXPECT_EQ(samples::nasBenchVertexChannels(c, 8, 64), (std::vector<int64_t>{8, 22, 22, 21, 21, 64}));
}

// Every vertex reachable from the input and reaching the output.
bool allOnPaths(const NasBenchCell& c) {
  const int n = c.vertices();
  std::vector<bool> from(n, false), to(n, false);
  from[0] = true;
  for (int j = 1; j < n; ++j)
    for (int i = 0; i < j; ++i) from[j] = from[j] || (from[i] && c.edge[i][j]);
  to[n - 1] = true;
  for (int i = n - 2; i >= 0; --i)
    for (int j = i + 1; j < n; ++j) to[i] = to[i] || (to[j] && c.edge[i][j]);
  for (int v = 0; v < n; ++v)
    if (!from[v] || !to[v]) return false;
  return true;
}

TEST(NasBenchSampler, KeepsWithinTheSearchSpace) {
  samples::WeightRng rng(42);
  std::vector<int> sizes(8, 0);
  for (int k = 0; k < 300; ++k) {
    const NasBenchCell c = samples::randomNasBenchCell(rng);
    ASSERT_GE(c.vertices(), 3);
    ASSERT_LE(c.vertices(), 7);
    ASSERT_LE(c.edges(), 9);
    ASSERT_EQ(c.ops.size(), static_cast<size_t>(c.vertices() - 2));
    for (int i = 0; i < c.vertices(); ++i)
      for (int j = 0; j <= i; ++j) ASSERT_FALSE(c.edge[i][j]) << "not upper triangular";
    ASSERT_TRUE(allOnPaths(c));
    ++sizes[static_cast<size_t>(c.vertices())];
  }
  // Varied: several sizes occur.
  int distinct = 0;
  for (int s : sizes) distinct += s > 0 ? 1 : 0;
  EXPECT_GE(distinct, 3);
}

bool sameCells(const std::vector<NasBenchCell>& a, const std::vector<NasBenchCell>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].edge != b[i].edge || a[i].ops != b[i].ops) return false;
  return true;
}

TEST(NasBenchSampler, CellsDependOnTheSeedOnly) {
  samples::SampleConfig four, eight;
  four.nasbenchCells = 4;
  eight.nasbenchCells = 8;
  const auto a = samples::nasBenchCellsFor(four);
  auto b = samples::nasBenchCellsFor(eight);
  EXPECT_TRUE(sameCells(a, samples::nasBenchCellsFor(four)));
  b.resize(4);
  EXPECT_TRUE(sameCells(a, b)) << "the first cells do not depend on the cell count";
  eight.seed = 2;
  auto c = samples::nasBenchCellsFor(eight);
  c.resize(4);
  EXPECT_FALSE(sameCells(a, c));
}

TEST(NasBenchCellsModel, BuildsForManySeeds) {
  // Each seed is a different set of DAGs: the wiring (truncation,
  // projections, concatenation) must hold for all of them.
  for (uint32_t seed = 1; seed <= 25; ++seed) {
    samples::SampleConfig config;
    config.seed = seed;
    config.nasbenchCells = 4;
    ir::Graph g;
    ASSERT_NO_THROW(g = samples::buildNasBenchCells(config)) << "seed " << seed;
    EXPECT_EQ(samples_test::outputShape(g, 0), (ir::Shape{1, 10}));
  }
}

}  // namespace
}  // namespace rammer
