#include "samples/zoo/bert_base.h"

#include "samples/builder/transformer_layers.h"

namespace rammer::samples {

ir::Graph buildBertBase(const SampleConfig& config) {
  ModelBuilder b("bert_base", kTransformerOpset, config.seed);
  const TransformerShape s;
  ir::ValueId x = b.input("hidden_states", {config.batch, s.seq, s.hidden}, {kBatchDim, "", ""});
  for (int64_t l = 0; l < config.transformerLayers; ++l) {
    const std::string layer = "encoder.layer" + std::to_string(l);
    // Post-norm: LayerNorm(x + sublayer(x)).
    x = layerNorm(b, layer + ".attention.norm",
                  b.op("Add", layer + ".attention.residual", {x, selfAttention(b, layer + ".attention", x, s, {})}));
    x = layerNorm(b, layer + ".output.norm",
                  b.op("Add", layer + ".output.residual", {x, feedForward(b, layer + ".ffn", x, s, false)}));
  }
  b.output(x, 0);
  return b.take();
}

}  // namespace rammer::samples
