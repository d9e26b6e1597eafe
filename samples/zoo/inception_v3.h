#pragma once
// Inception-V3 for ImageNet in torchvision's layout (Szegedy et al. 2016),
// inference graph: 3x299x299 input, stem of five BasicConv2d and two max
// pools, Mixed_5b..Mixed_7c (InceptionA x3, B, C x4, D, E x2), global average
// pool, fc 1000. No auxiliary classifier (it only runs in training) and no
// dropout (an identity at inference): 23,834,568 parameters, torchvision's
// 27,161,264 less the 3,326,696 of AuxLogits.
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildInceptionV3(const SampleConfig& config);

}  // namespace rammer::samples
