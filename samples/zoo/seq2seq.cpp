#include "samples/zoo/seq2seq.h"

#include "samples/builder/rnn_layers.h"

namespace rammer::samples {

namespace {
constexpr int64_t kHidden = 128;
constexpr int64_t kEncoderLayers = 8, kEncoderSteps = 100;
constexpr int64_t kDecoderLayers = 4, kDecoderSteps = 30;
constexpr int64_t kOutputFeatures = 128;  // the paper gives no vocabulary; keep the hidden width
}  // namespace

ir::Graph buildSeq2Seq(const SampleConfig& config) {
  ModelBuilder b("seq2seq", kSampleOpset, config.seed);
  const ir::ValueId source = b.input("encoder_input", {kEncoderSteps, config.batch, kHidden}, {"", kBatchDim, ""});
  const ir::ValueId target = b.input("decoder_input", {kDecoderSteps, config.batch, kHidden}, {"", kBatchDim, ""});
  const auto encoder = lstmStack(b, "encoder", source, kEncoderLayers, kHidden);
  // Decoder layer k starts from encoder layer (8 - 4 + k)'s final states.
  const std::vector<LstmLayer> initial(encoder.end() - kDecoderLayers, encoder.end());
  const auto decoder = lstmStack(b, "decoder", target, kDecoderLayers, kHidden, initial);
  b.output(sequenceDense(b, "fc", decoder.back().y, kOutputFeatures), 1);
  return b.take();
}

}  // namespace rammer::samples
