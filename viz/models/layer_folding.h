#pragma once
// Repeated layers of a model (BERT's encoder layers, ViT's blocks, Swin's
// stages), found from the node names exporters write: the scope up to the
// first numbered segment ("/encoder/layers.3/self_attn/MatMul" is in
// "/encoder/layers.3", "encoder.layer3.ffn.fc1" in "encoder.layer3"). Scopes
// that differ only in that number are one kind of layer; the graph view
// folds each such layer into one box so a 12-layer model reads like its
// diagram. Names are the only source: a graph whose names carry no scopes
// has no repeated layers.
#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace rammer::viz {

struct RepeatedLayer {
  std::string prefix;             // "/encoder/layers.3"
  std::string stem;               // "/encoder/layers.#": what its siblings share
  std::vector<ir::NodeId> nodes;  // its live operators, in display order
};

// The layer scope of a node name and its stem; empty when the name has no
// numbered scope segment (the last segment, the op's own name, never counts).
struct LayerScope {
  std::string prefix, stem;
};
LayerScope layerScopeOf(const std::string& nodeName);

// Layers whose stem has at least two layers of at least two operators each,
// in the display order of their first operator.
std::vector<RepeatedLayer> findRepeatedLayers(const ir::Graph& graph);

}  // namespace rammer::viz
