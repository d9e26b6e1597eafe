#include "samples/zoo/gpt2_small.h"

#include "samples/builder/transformer_layers.h"

namespace rammer::samples {

ir::Graph buildGpt2Small(const SampleConfig& config) {
  ModelBuilder b("gpt2_small", kTransformerOpset, config.seed);
  const TransformerShape s;
  ir::ValueId x = b.input("hidden_states", {config.batch, s.seq, s.hidden}, {kBatchDim, "", ""});
  const ir::ValueId mask = causalMask(b, "causal_mask", s.seq);
  for (int64_t l = 0; l < config.transformerLayers; ++l) {
    const std::string block = "h" + std::to_string(l);
    // Pre-norm: x + sublayer(LayerNorm(x)).
    const ir::ValueId a = selfAttention(b, block + ".attn", layerNorm(b, block + ".ln_1", x), s, mask);
    x = b.op("Add", block + ".attn.residual", {x, a});
    const ir::ValueId m = feedForward(b, block + ".mlp", layerNorm(b, block + ".ln_2", x), s, true);
    x = b.op("Add", block + ".mlp.residual", {x, m});
  }
  b.output(layerNorm(b, "ln_f", x), 0);
  return b.take();
}

}  // namespace rammer::samples
