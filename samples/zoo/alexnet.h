#pragma once
// AlexNet for ImageNet in torchvision's layout (one-GPU variant of
// Krizhevsky et al. 2012): 61.1M parameters, 224x224 input.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildAlexNet(const SampleConfig& config);

}  // namespace rammer::samples
