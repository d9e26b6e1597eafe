#pragma once
// NASNet-A for CIFAR-10, "6 @ 768" (Zoph et al. 2018, Table 1): 3 stages of
// N=6 normal cells with 2 reduction cells between them, 32/64/128 filters per
// cell op (768 channels out of the last cell): 3.3M parameters.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildNasNetCifar(const SampleConfig& config);

}  // namespace rammer::samples
