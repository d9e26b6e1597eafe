#pragma once
// ResNeXt-29 for CIFAR-10, 16x64d (Xie et al., "Aggregated Residual
// Transformations for Deep Neural Networks", 2017): 68.1M parameters.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildResNeXt29(const SampleConfig& config);

}  // namespace rammer::samples
