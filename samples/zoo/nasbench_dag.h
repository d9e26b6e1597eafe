#pragma once
// NAS-Bench-101 cells (Ying et al., "NAS-Bench-101: Towards Reproducible
// Neural Architecture Search", 2019): a DAG of at most 7 vertices (input, up
// to 5 ops, output) and at most 9 edges, in upper-triangular form.
#include <cstdint>
#include <vector>

#include "samples/builder/weight_rng.h"

namespace rammer::samples {

enum class NasBenchOp { Conv3x3, Conv1x1, MaxPool3x3 };

inline constexpr int kNasBenchMaxVertices = 7;
inline constexpr int kNasBenchMaxEdges = 9;

struct NasBenchCell {
  // edge[i][j] (i < j): vertex i feeds vertex j. Vertex 0 is the input, the
  // last vertex the output.
  std::vector<std::vector<bool>> edge;
  std::vector<NasBenchOp> ops;  // one per interior vertex 1..n-2

  int vertices() const { return static_cast<int>(edge.size()); }
  int edges() const;
};

// A random valid cell: every vertex lies on a path from input to output (the
// others are pruned), at least one op, at most 9 edges.
NasBenchCell randomNasBenchCell(WeightRng& rng);

// Channels per vertex under NAS-Bench-101's rule: the output's channels are
// split evenly over the interior vertices feeding it (the remainder to the
// first ones), and every other vertex takes the largest width it feeds.
std::vector<int64_t> nasBenchVertexChannels(const NasBenchCell& cell, int64_t inChannels, int64_t outChannels);

}  // namespace rammer::samples
