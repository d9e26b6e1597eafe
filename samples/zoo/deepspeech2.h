#pragma once
// DeepSpeech2 (Amodei et al. 2016) as in the Rammer evaluation: two
// Conv+BN+ReLU layers over a 161x300 spectrogram, seven unidirectional LSTM
// layers of 256, a dense layer to 29 characters per frame.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildDeepSpeech2(const SampleConfig& config);

}  // namespace rammer::samples
