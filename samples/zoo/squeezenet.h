#pragma once
// SqueezeNet 1.1 for ImageNet in torchvision's layout (Iandola et al. 2016,
// the 1.1 variant of the SqueezeNet repository): 224x224 input, conv 3x3/2 64,
// three ceil-mode max pools between eight Fire modules (squeeze 1x1, then
// expand 1x1 and expand 3x3 concatenated), final conv 1x1 1000 + ReLU, global
// average pool: 1,235,496 parameters. Node and weight names are torchvision's
// module paths (`features.3.squeeze`, `classifier.1`).
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildSqueezeNet(const SampleConfig& config);

}  // namespace rammer::samples
