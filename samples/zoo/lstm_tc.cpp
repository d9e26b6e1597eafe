#include "samples/zoo/lstm_tc.h"

#include "samples/builder/rnn_layers.h"

namespace rammer::samples {

ir::Graph buildLstmTc(const SampleConfig& config) {
  ModelBuilder b("lstm_tc", kSampleOpset, config.seed);
  const ir::ValueId x = b.input("input", {100, config.batch, 256}, {"", kBatchDim, ""});
  const auto layers = lstmStack(b, "rnn", x, 10, 256);
  b.output(layers.back().y, 1);
  return b.take();
}

}  // namespace rammer::samples
