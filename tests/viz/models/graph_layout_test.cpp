#include "viz/models/graph_layout.h"

#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <cmath>
#include <thread>

#include "tests/viz/viz_test_graphs.h"
#include "viz/models/graph_display.h"

namespace rammer::viz {
namespace {

constexpr double kTol = 1.0;  // points: dot rounds positions

LayoutSize fixedSize(const DisplayNode& n) { return n.kind == DisplayNodeKind::Operator ? LayoutSize{100, 36} : LayoutSize{80, 24}; }

bool inside(const LayoutPoint& p, const NodePlacement& n, double slack) {
  return std::fabs(p.x - n.x) <= n.width / 2 + slack && std::fabs(p.y - n.y) <= n.height / 2 + slack;
}

// Every box placed with the size it asked for, every producer strictly above
// its consumer, every edge starting on its producer and ending (arrow tip)
// on its consumer.
void expectWellFormed(const LayoutRequest& req, const GraphLayout& layout) {
  ASSERT_EQ(layout.nodes.size(), req.nodes.size());
  ASSERT_EQ(layout.edges.size(), req.edges.size());
  for (size_t i = 0; i < req.nodes.size(); ++i) {
    const NodePlacement& p = layout.nodes[i];
    EXPECT_TRUE(std::isfinite(p.x) && std::isfinite(p.y)) << "node " << i;
    EXPECT_NEAR(p.width, req.nodes[i].width, kTol) << "node " << i;
    EXPECT_NEAR(p.height, req.nodes[i].height, kTol) << "node " << i;
    EXPECT_GE(p.x - p.width / 2, -kTol) << "node " << i;
    EXPECT_LE(p.x + p.width / 2, layout.width + kTol) << "node " << i;
    EXPECT_GE(p.y - p.height / 2, -kTol) << "node " << i;
    EXPECT_LE(p.y + p.height / 2, layout.height + kTol) << "node " << i;
  }
  for (size_t e = 0; e < req.edges.size(); ++e) {
    const NodePlacement& from = layout.nodes[static_cast<size_t>(req.edges[e].first)];
    const NodePlacement& to = layout.nodes[static_cast<size_t>(req.edges[e].second)];
    EXPECT_LT(from.y + from.height / 2, to.y - to.height / 2) << "edge " << e << ": producer not above consumer";
    const EdgeRoute& r = layout.edges[e];
    ASSERT_GE(r.points.size(), 4u) << "edge " << e;
    EXPECT_EQ((r.points.size() - 1) % 3, 0u) << "edge " << e << ": not a cubic Bézier chain";
    EXPECT_TRUE(inside(r.points.front(), from, 2)) << "edge " << e << " does not start on its producer";
    ASSERT_TRUE(r.hasArrow) << "edge " << e;
    EXPECT_TRUE(inside(r.arrowTip, to, 2)) << "edge " << e << " does not end on its consumer";
  }
}

TEST(GraphLayout, SmallGraphIsTopDownWithEdgesBetweenTheRightBoxes) {
  const ir::Graph g = viztest::diamond();
  const GraphDisplay d = buildGraphDisplay(g);
  const LayoutRequest req = makeLayoutRequest(d, fixedSize);
  ASSERT_EQ(req.nodes.size(), 6u);  // 4 operators, 1 input, 1 output
  auto layout = computeGraphLayout(req);
  ASSERT_TRUE(layout.ok()) << layout.errorText();
  expectWellFormed(req, *layout);

  // input above conv above {relu_a, sigmoid_b} above add_c above output;
  // the two branches side by side on one rank.
  auto at = [&](int nodeId) { return layout->nodes[static_cast<size_t>(d.indexOfNode(nodeId))]; };
  const NodePlacement input = layout->nodes[4], output = layout->nodes[5];
  EXPECT_LT(input.y, at(0).y);
  EXPECT_LT(at(0).y, at(1).y);
  EXPECT_NEAR(at(1).y, at(2).y, kTol);
  EXPECT_GE(std::fabs(at(1).x - at(2).x), 100 - kTol);  // no overlap on a rank
  EXPECT_LT(at(2).y, at(3).y);
  EXPECT_LT(at(3).y, output.y);
}

TEST(GraphLayout, ParallelEdgesStayDistinct) {
  LayoutRequest req;
  req.nodes = {{50, 20}, {50, 20}};
  req.edges = {{0, 1}, {0, 1}};
  auto layout = computeGraphLayout(req);
  ASSERT_TRUE(layout.ok()) << layout.errorText();
  expectWellFormed(req, *layout);
  // Two arrows, routed apart.
  EXPECT_GT(std::fabs(layout->edges[0].points[1].x - layout->edges[1].points[1].x), 1.0);
}

// In big graphs an edge spanning many ranks is not routed by dot (that is
// what made unrolled LSTMs take minutes) but drawn direct; small graphs
// route every edge.
TEST(GraphLayout, LongEdgesOfBigGraphsAreDrawnDirect) {
  LayoutRequest req;
  for (int i = 0; i < 12; ++i) req.nodes.push_back({60, 20});
  for (int i = 0; i + 1 < 12; ++i) req.edges.emplace_back(i, i + 1);
  req.edges.emplace_back(0, 11);  // spans 11 ranks
  req.edges.emplace_back(3, 9);   // spans 6: still routed
  req.maxRoutedSpan = 8;
  req.directEdgeMinNodes = 10;  // "big" for this test
  auto layout = computeGraphLayout(req);
  ASSERT_TRUE(layout.ok()) << layout.errorText();
  expectWellFormed(req, *layout);
  for (size_t e = 0; e < req.edges.size(); ++e) EXPECT_EQ(layout->edges[e].direct, e == 11) << "edge " << e;
  const EdgeRoute& direct = layout->edges[11];
  EXPECT_NEAR(direct.points.front().x, layout->nodes[0].x, kTol);
  EXPECT_NEAR(direct.arrowTip.x, layout->nodes[11].x, kTol);
  EXPECT_NEAR(direct.arrowTip.y, layout->nodes[11].y - 10, kTol);  // the consumer's top

  req.directEdgeMinNodes = 1000;
  layout = computeGraphLayout(req);
  ASSERT_TRUE(layout.ok()) << layout.errorText();
  expectWellFormed(req, *layout);
  for (const EdgeRoute& r : layout->edges) EXPECT_FALSE(r.direct);
}

TEST(GraphLayout, EmptyRequestGivesEmptyLayout) {
  auto layout = computeGraphLayout({});
  ASSERT_TRUE(layout.ok());
  EXPECT_TRUE(layout->nodes.empty());
  EXPECT_EQ(layout->width, 0);
}

TEST(GraphLayout, BadRequestsAreErrorsNamingTheProblem) {
  LayoutRequest req;
  req.nodes = {{10, 10}, {10, 10}};
  req.edges = {{0, 2}};
  auto bad = computeGraphLayout(req);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errorText().find("edge 0 joins node 0 to node 2"), std::string::npos) << bad.errorText();

  req.edges = {{0, 1}};
  req.nodes[1].height = 0;
  bad = computeGraphLayout(req);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errorText().find("node 1"), std::string::npos) << bad.errorText();

  req.nodes[1].height = std::nan("");
  EXPECT_FALSE(computeGraphLayout(req).ok());
}

// Graphviz has process-wide state; the lock in computeGraphLayout makes
// layouts from several threads give what one thread alone gives.
TEST(GraphLayout, ConcurrentLayoutsMatchSequentialOnes) {
  std::vector<LayoutRequest> reqs;
  for (int k = 0; k < 4; ++k)
    reqs.push_back(makeLayoutRequest(buildGraphDisplay(viztest::grid(3 + k, 4)), fixedSize));
  std::vector<GraphLayout> sequential;
  for (const LayoutRequest& r : reqs) {
    auto l = computeGraphLayout(r);
    ASSERT_TRUE(l.ok()) << l.errorText();
    sequential.push_back(std::move(l.value()));
  }
  std::vector<std::optional<ir::Result<GraphLayout>>> parallel(reqs.size());
  std::vector<std::thread> threads;
  for (size_t k = 0; k < reqs.size(); ++k)
    threads.emplace_back([&, k] { parallel[k].emplace(computeGraphLayout(reqs[k])); });
  for (std::thread& t : threads) t.join();
  for (size_t k = 0; k < reqs.size(); ++k) {
    ASSERT_TRUE(parallel[k] && parallel[k]->ok()) << k;
    const GraphLayout& p = parallel[k]->value();
    ASSERT_EQ(p.nodes.size(), sequential[k].nodes.size());
    for (size_t i = 0; i < p.nodes.size(); ++i) {
      EXPECT_DOUBLE_EQ(p.nodes[i].x, sequential[k].nodes[i].x) << "graph " << k << " node " << i;
      EXPECT_DOUBLE_EQ(p.nodes[i].y, sequential[k].nodes[i].y) << "graph " << k << " node " << i;
    }
  }
}

// A 2,000-operator wavefront grid (the shape of unrolled stacked LSTMs, the
// hardest common case for dot's crossing minimisation) lays out completely
// and correctly. The time is printed, not asserted (tests/bench measures it).
TEST(GraphLayout, TwoThousandNodeGridCompletes) {
  const ir::Graph g = viztest::grid(50, 40);
  const GraphDisplay d = buildGraphDisplay(g);
  ASSERT_EQ(d.nodes.size(), 2002u);
  const LayoutRequest req = makeLayoutRequest(d, fixedSize);
  QElapsedTimer timer;
  timer.start();
  auto layout = computeGraphLayout(req);
  std::printf("[ layout   ] %zu boxes, %zu edges: %.2f s\n", req.nodes.size(), req.edges.size(),
              static_cast<double>(timer.elapsed()) / 1000.0);
  ASSERT_TRUE(layout.ok()) << layout.errorText();
  expectWellFormed(req, *layout);
}

}  // namespace
}  // namespace rammer::viz
