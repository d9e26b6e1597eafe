// Repeated layers from node names (issue #16 item 6: the graph view folds
// each repeated encoder layer).
#include "viz/models/layer_folding.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/viz/viz_test_graphs.h"
#include "viz/models/graph_display.h"

namespace rammer::viz {
namespace {

TEST(LayerFolding, ScopesAsExportersAndTheSampleGeneratorWriteThem) {
  struct Case {
    const char* name;
    const char* prefix;
    const char* stem;
  };
  const Case cases[] = {
      {"/encoder/layers.3/self_attn/MatMul_2", "/encoder/layers.3", "/encoder/layers.#"},    // torch.onnx.export
      {"/features/features.1/features.1.1/attn/Slice", "/features/features.1", "/features/features.#"},  // Swin
      {"encoder.layer11.attention.self.query", "encoder.layer11", "encoder.layer#"},  // our BERT sample
      {"blocks.7.mlp.fc1", "blocks.7", "blocks.#"},                                 // our ViT sample
      {"/Constant_2", "", ""},  // the op's own number is no scope
      {"/head/Relu_1", "", ""},
      {"cell_4_2", "", ""},
      {"conv3", "", ""},
  };
  for (const Case& c : cases) {
    const LayerScope s = layerScopeOf(c.name);
    EXPECT_EQ(s.prefix, c.prefix) << c.name;
    EXPECT_EQ(s.stem, c.stem) << c.name;
  }
}

TEST(LayerFolding, FindsEachLayerWithItsOperatorsInOrder) {
  const ir::Graph g = viztest::layered(4, 3);
  const std::vector<RepeatedLayer> layers = findRepeatedLayers(g);
  ASSERT_EQ(layers.size(), 4u);
  for (int l = 0; l < 4; ++l) {
    const RepeatedLayer& layer = layers[static_cast<size_t>(l)];
    EXPECT_EQ(layer.prefix, "/encoder/layers." + std::to_string(l));
    EXPECT_EQ(layer.stem, "/encoder/layers.#");
    ASSERT_EQ(layer.nodes.size(), 4u);  // 3 activations and the residual Add
    EXPECT_EQ(g.node(layer.nodes.back()).opType, "Add");
  }
}

// One numbered scope, or numbered scopes of one operator each, are not a
// repeated structure.
TEST(LayerFolding, NothingRepeatsInAGraphWithoutRepeatedScopes) {
  EXPECT_TRUE(findRepeatedLayers(viztest::layered(1, 5)).empty());
  EXPECT_TRUE(findRepeatedLayers(viztest::grid(4, 4)).empty());
  EXPECT_TRUE(findRepeatedLayers(viztest::diamond()).empty());
}

TEST(LayerFolding, AFoldedLayerIsOneBoxStandingForItsOperators) {
  const ir::Graph g = viztest::layered(3, 2);
  const std::vector<RepeatedLayer> layers = findRepeatedLayers(g);
  ASSERT_EQ(layers.size(), 3u);
  const GraphDisplay whole = buildGraphDisplay(g);
  // Fold the middle layer only.
  const GraphDisplay d = buildGraphDisplay(g, {layers[1]});
  ASSERT_EQ(d.nodes.size(), whole.nodes.size() - layers[1].nodes.size() + 1);
  const int box = d.indexOfNode(layers[1].nodes.front());
  ASSERT_GE(box, 0);
  const DisplayNode& n = d.nodes[static_cast<size_t>(box)];
  EXPECT_EQ(n.kind, DisplayNodeKind::Layer);
  EXPECT_EQ(n.name, "/encoder/layers.1");
  EXPECT_EQ(n.title, "3 operators");
  EXPECT_EQ(n.layerNodes, layers[1].nodes);
  for (ir::NodeId id : layers[1].nodes) EXPECT_EQ(d.indexOfNode(id), box);
  // No edge inside the box; one residual and one chain edge come in from
  // layer 0's Add, and layer 2 reads the box's output twice (chain and
  // residual) over one value.
  std::set<int> into, outOf;
  for (const DisplayEdge& e : d.edges) {
    EXPECT_FALSE(e.from == box && e.to == box);
    if (e.to == box) into.insert(e.from);
    if (e.from == box) outOf.insert(e.to);
  }
  EXPECT_EQ(into, std::set<int>({d.indexOfNode(layers[0].nodes.back())}));
  EXPECT_EQ(outOf.size(), 2u);  // layer 2's first activation and its Add
  for (int to : outOf) EXPECT_EQ(d.nodes[static_cast<size_t>(to)].name.rfind("/encoder/layers.2/", 0), 0u);
}

}  // namespace
}  // namespace rammer::viz
