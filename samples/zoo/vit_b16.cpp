#include "samples/zoo/vit_b16.h"

#include "samples/builder/cnn_layers.h"
#include "samples/builder/transformer_layers.h"

namespace rammer::samples {

ir::Graph buildVitB16(const SampleConfig& config) {
  ModelBuilder b("vit_b16", kTransformerOpset, config.seed);
  const TransformerShape s{197, 768, 12, 3072};
  const ir::ValueId image = b.input("input", {config.batch, 3, 224, 224}, {kBatchDim, "", "", ""});
  ConvSpec patch = ConvSpec::square(s.hidden, 16, 16);
  patch.bias = true;
  // [B, 768, 14, 14] -> [B, 196, 768]
  ir::ValueId x = conv(b, "patch_embed.proj", image, patch);
  x = b.op("Reshape", "patch_embed.flatten", {x, b.ints({0, s.hidden, 196})});
  x = b.op("Transpose", "patch_embed.tokens", {x}, attrs({{"perm", std::vector<int64_t>{0, 2, 1}}}));
  // cls_token expanded to [B, 1, 768].
  const ir::ValueId cls = b.constant("cls_token", b.rng().uniformTensor({1, 1, s.hidden}, 0.02f));
  const ir::ValueId target = b.ints({config.batch, 1, s.hidden});
  x = b.op("Concat", "tokens", {b.op("Expand", "cls_token.expand", {cls, target}), x}, attrs({{"axis", int64_t{1}}}));
  x = b.op("Add", "pos_embed.add", {x, b.constant("pos_embed", b.rng().uniformTensor({1, s.seq, s.hidden}, 0.02f))});
  for (int64_t l = 0; l < config.transformerLayers; ++l) {
    const std::string block = "blocks." + std::to_string(l);
    x = b.op("Add", block + ".attn.residual",
             {x, selfAttention(b, block + ".attn", layerNorm(b, block + ".norm1", x), s, {})});
    x = b.op("Add", block + ".mlp.residual", {x, feedForward(b, block + ".mlp", layerNorm(b, block + ".norm2", x), s, false)});
  }
  x = layerNorm(b, "norm", x);
  // The class token's features: [B, 768].
  const ir::ValueId clsOut = b.op("Gather", "head.cls", {x, b.constant("head.index", ir::Tensor::scalar<int64_t>(0))},
                                  attrs({{"axis", int64_t{1}}}));
  b.output(linear(b, "head", clsOut, 1000), 0);
  return b.take();
}

}  // namespace rammer::samples
