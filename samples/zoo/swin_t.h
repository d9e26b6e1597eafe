#pragma once
// A Swin-T-style image classifier (Liu et al. 2021): 4x4 patches of a
// 224x224 image, four stages of (shifted) window attention, dims 96-768,
// depths 2-2-6-2, heads 3-6-12-24, 7x7 windows, patch merging between
// stages, mean pooling and a linear head: 28,288,354 parameters, as timm's
// swin_tiny_patch4_window7_224. Written the way exports write it: windows
// by Reshape/Transpose, the cyclic shift as Slice + Concat, the relative
// position bias as a Gather from its table with a constant index, and the
// shifted windows' mask built from constants through ScatterND (it folds).
// config.transformerLayers caps every stage's depth (the tests use 2).
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

ir::Graph buildSwinT(const SampleConfig& config);

}  // namespace rammer::samples
