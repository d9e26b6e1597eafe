#pragma once
// The random graphs of RandWire (Xie et al., "Exploring Randomly Wired Neural
// Networks for Image Recognition", 2019): a Watts-Strogatz small-world graph
// WS(N, K, P), made a DAG by pointing every edge from the lower node index to
// the higher one.
#include <vector>

#include "samples/builder/weight_rng.h"

namespace rammer::samples {

struct RandomDag {
  // preds[j]: the nodes feeding node j, ascending, all below j.
  std::vector<std::vector<int>> preds;

  int nodes() const { return static_cast<int>(preds.size()); }
  int edges() const;
  // Nodes without predecessors (fed by the stage input), ascending.
  std::vector<int> inputs() const;
  // Nodes without successors (averaged into the stage output), ascending.
  std::vector<int> outputs() const;
};

// WS(n, k, p): a ring where every node is joined to its k/2 neighbours on
// each side; then, for j = 1..k/2 and every node u in turn, with probability
// p the edge (u, u+j) is moved to (u, w) for a uniformly drawn w that is
// neither u nor already joined to u. Every node keeps its k/2 own edges, so
// none is isolated and the graph has n*k/2 edges. n > k >= 2, k even.
RandomDag wattsStrogatzDag(int n, int k, float p, WeightRng& rng);

}  // namespace rammer::samples
