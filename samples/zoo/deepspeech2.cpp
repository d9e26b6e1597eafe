#include "samples/zoo/deepspeech2.h"

#include "samples/builder/cnn_layers.h"
#include "samples/builder/rnn_layers.h"

namespace rammer::samples {

ir::Graph buildDeepSpeech2(const SampleConfig& config) {
  ModelBuilder b("deepspeech2", kSampleOpset, config.seed);
  // [batch, channel, frequency bins, frames]
  ir::ValueId x = b.input("spectrogram", {config.batch, 1, 161, 300}, {kBatchDim});
  // Kernels and padding as in deepspeech.pytorch: (41x11, stride 2x2, pad
  // 20x5) and (21x11, stride 2x1, pad 10x5): 161x300 -> 81x150 -> 41x150.
  x = convBnRelu(b, "conv1", x, ConvSpec{32, 41, 11, 2, 2, Pads{20, 5, 20, 5}});
  x = convBnRelu(b, "conv2", x, ConvSpec{32, 21, 11, 2, 1, Pads{10, 5, 10, 5}});
  // [batch, 32, 41, frames] -> [frames, batch, 32, 41] -> [frames, batch, 1312];
  // Reshape's 0 copies the dim, so a symbolic batch still works.
  x = b.op("Transpose", "to_sequence", {x}, attrs({{"perm", std::vector<int64_t>{3, 0, 1, 2}}}));
  x = b.op("Reshape", "flatten_features", {x, b.ints({0, 0, -1})});
  const auto layers = lstmStack(b, "rnn", x, 7, 256);
  b.output(sequenceDense(b, "fc", layers.back().y, 29), 1);
  return b.take();
}

}  // namespace rammer::samples
