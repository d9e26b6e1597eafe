#pragma once
// A stem conv followed by `config.nasbenchCells` seeded random
// NAS-Bench-101 cells (64 channels, 32x32 input), pooled into 10 classes.
// The cells depend on the seed only: the first k cells are the same whatever
// the cell count.
#include "core/ir/graph.h"
#include "samples/zoo/nasbench_dag.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildNasBenchCells(const SampleConfig& config);

// The cells buildNasBenchCells draws for this config.
std::vector<NasBenchCell> nasBenchCellsFor(const SampleConfig& config);

// One cell at a small scale, for studies that run thousands of them (the
// robustness benchmark, tests/bench/bench_robustness.cpp): a stem conv to
// `channels`, the cell, pooled into 10 classes; input [1, 3, size, size],
// weights from `seed`.
ir::Graph buildNasBenchCell(const NasBenchCell& cell, uint32_t seed, int64_t channels, int64_t size);

}  // namespace rammer::samples
