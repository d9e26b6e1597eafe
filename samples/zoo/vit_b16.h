#pragma once
// A ViT-B/16-style image classifier (Dosovitskiy et al. 2021): 16x16 patches
// of a 224x224 image embedded by a strided Conv, a class token and learned
// position embeddings (197 tokens), 12 pre-norm encoder layers (hidden 768,
// 12 heads, FFN 3072, exact GELU), a final LayerNorm and a linear head on the
// class token: 86,567,656 parameters, as timm's vit_base_patch16_224. The
// class token is expanded to the configured batch (a constant target shape,
// where an export reads the batch through a Shape sub-graph).
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildVitB16(const SampleConfig& config);

}  // namespace rammer::samples
