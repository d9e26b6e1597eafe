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

}  // namespace rammer::samples
