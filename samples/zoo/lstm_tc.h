#pragma once
// LSTM-TC from the Rammer evaluation: 10 stacked LSTM layers, hidden 256,
// 100 time steps, input size 256.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildLstmTc(const SampleConfig& config);

}  // namespace rammer::samples
