#pragma once
// One Inception-V3 "A" block (torchvision's Mixed_5b, Szegedy et al. 2016)
// on a [batch, 192, 35, 35] input: four branches concatenated to 256 channels.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildInceptionBlock(const SampleConfig& config);

}  // namespace rammer::samples
