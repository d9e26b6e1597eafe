#pragma once
// Seq2Seq from the Rammer evaluation (Sutskever et al. 2014 shape): an
// encoder of 8 stacked LSTM layers over 100 steps and a decoder of 4 layers
// over 30 steps, hidden 128, then a dense layer. The decoder reads its input
// sequence as a second graph input (teacher forcing) and starts from the
// final states of the encoder's last 4 layers.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildSeq2Seq(const SampleConfig& config);

}  // namespace rammer::samples
