#pragma once
// The blocks of Inception-V3 (Szegedy et al., "Rethinking the Inception
// Architecture for Computer Vision", 2016) in torchvision's layout: every
// unit is a BasicConv2d (conv without bias -> BN with eps 1e-3 -> ReLU) named
// `<prefix><unit>.conv` / `.bn` / `.relu`, as torchvision names its modules
// (`Mixed_5b.branch1x1.conv`), so weights line up with its state dict. Every
// block ends in a Concat named `<prefix>concat`.
#include <cstdint>
#include <string>

#include "samples/builder/cnn_layers.h"

namespace rammer::samples {

// BatchNorm epsilon of Inception-V3's BasicConv2d.
inline constexpr float kInceptionBnEps = 1e-3f;

// BasicConv2d with a kh x kw kernel, stride `stride` and padding (padH, padW)
// on both sides.
ir::ValueId basicConv2d(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out, int64_t kh, int64_t kw,
                        int64_t stride = 1, int64_t padH = 0, int64_t padW = 0);

// InceptionA (Mixed_5b/c/d, 35x35): 1x1 64 | 1x1 48 -> 5x5 64 |
// 1x1 64 -> 3x3 96 -> 3x3 96 | avg pool 3x3 -> 1x1 poolFeatures.
ir::ValueId inceptionA(ModelBuilder& b, const std::string& prefix, ir::ValueId x, int64_t poolFeatures);
// InceptionB (Mixed_6a, 35 -> 17): 3x3/2 384 | 1x1 64 -> 3x3 96 -> 3x3/2 96 |
// max pool 3x3/2.
ir::ValueId inceptionB(ModelBuilder& b, const std::string& prefix, ir::ValueId x);
// InceptionC (Mixed_6b..e, 17x17, 768 channels): 1x1 192 | 1x1 c7 -> 1x7 c7
// -> 7x1 192 | 1x1 c7 -> 7x1 c7 -> 1x7 c7 -> 7x1 c7 -> 1x7 192 |
// avg pool 3x3 -> 1x1 192.
ir::ValueId inceptionC(ModelBuilder& b, const std::string& prefix, ir::ValueId x, int64_t c7);
// InceptionD (Mixed_7a, 17 -> 8): 1x1 192 -> 3x3/2 320 | 1x1 192 -> 1x7 192
// -> 7x1 192 -> 3x3/2 192 | max pool 3x3/2.
ir::ValueId inceptionD(ModelBuilder& b, const std::string& prefix, ir::ValueId x);
// InceptionE (Mixed_7b/c, 8x8, 2048 out): 1x1 320 | 1x1 384 -> (1x3 384,
// 3x1 384) | 1x1 448 -> 3x3 384 -> (1x3 384, 3x1 384) | avg pool 3x3 -> 1x1
// 192. The split pairs are concatenated first (`branch3x3.concat`,
// `branch3x3dbl.concat`), as torchvision's forward does.
ir::ValueId inceptionE(ModelBuilder& b, const std::string& prefix, ir::ValueId x);

}  // namespace rammer::samples
