#pragma once
// What every sample-model builder takes: batch size, weight seed and the
// few structural knobs the CLI exposes.
#include <cstdint>

#include "samples/builder/batch_dim.h"

namespace rammer::samples {

// ONNX opset of every generated model (LSTM's opset-14 form, Squeeze with an
// axes input).
inline constexpr int64_t kSampleOpset = 14;

struct SampleConfig {
  int64_t batch = 1;
  uint32_t seed = 1;
  int64_t nasbenchCells = 8;  // cells in nasbench_cells
  int randwireNodes = 32;     // nodes per random stage of randwire (the paper's N)
  int64_t transformerLayers = 12;  // layers of bert_base, gpt2_small and vit_b16
};

}  // namespace rammer::samples
