#pragma once
// RandWire-WS in the small computation regime (Xie et al., "Exploring Randomly
// Wired Neural Networks for Image Recognition", 2019, table 2): 224x224 input,
// conv1 (3x3/2, C/2) and conv2 (3x3/2, C), then three randomly wired stages
// conv3..conv5 of N nodes with C, 2C, 4C channels (C = 78) on 28, 14 and 7
// pixels, then a 1x1 conv to 1280, global average pool and fc 1000.
//
// Each stage is a WS(N, K = 4, P = 0.75) graph made a DAG (randwire_graph.h).
// A node sums its inputs (Add; the paper's learned positive weights are 1
// here), then ReLU -> separable 3x3 conv (depthwise 3x3, pointwise 1x1) -> BN;
// the nodes without predecessors read the stage input with stride 2, and the
// stage output is the Mean of the nodes without successors.
//
// The graphs come from a fixed seed, not the weight seed: another --seed
// gives other weights in the same network, as for every other sample.
#include <cstdint>
#include <vector>

#include "core/ir/graph.h"
#include "samples/zoo/randwire_graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

inline constexpr int64_t kRandWireChannels = 78;   // C
inline constexpr int kRandWireNeighbours = 4;      // K
inline constexpr float kRandWireRewiring = 0.75f;  // P
inline constexpr uint32_t kRandWireGraphSeed = 2019;

// The random graphs of conv3, conv4 and conv5 for config.randwireNodes nodes
// each, drawn in that order from one generator seeded with kRandWireGraphSeed.
std::vector<RandomDag> randWireStageGraphs(const SampleConfig& config);

ir::Graph buildRandWire(const SampleConfig& config);

}  // namespace rammer::samples
