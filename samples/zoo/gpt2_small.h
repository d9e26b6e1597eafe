#pragma once
// A GPT-2-small-style decoder (Radford et al. 2019): 12 pre-norm blocks,
// hidden 768, 12 heads, FFN 3072 with the tanh GELU, a causal mask built from
// constants, a final LayerNorm; sequence 128. The input is the embedded
// sequence [B, 128, 768] (no token or position embeddings, no LM head), so
// the parameters are the blocks' 85,054,464 plus the final norm's 1,536.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildGpt2Small(const SampleConfig& config);

}  // namespace rammer::samples
