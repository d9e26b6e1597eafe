#pragma once
// A BERT-base-style encoder (Devlin et al. 2019): 12 post-norm layers,
// hidden 768, 12 heads, FFN 3072 with exact GELU, sequence 128. The input is
// the embedded sequence [B, 128, 768]: the embedding lookup and the pooler
// are left out (a gather and one dense layer), so the parameters are the
// encoder stack's 85,054,464.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildBertBase(const SampleConfig& config);

}  // namespace rammer::samples
