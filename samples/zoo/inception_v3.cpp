#include "samples/zoo/inception_v3.h"

#include "samples/zoo/inception_modules.h"

namespace rammer::samples {

ir::Graph buildInceptionV3(const SampleConfig& config) {
  ModelBuilder b("inception_v3", kSampleOpset, config.seed);
  ir::ValueId x = b.input("input", {config.batch, 3, 299, 299}, {kBatchDim});
  // Stem: 299 -> 149 -> 147 -> 147 -> 73 -> 73 -> 71 -> 35.
  x = basicConv2d(b, "Conv2d_1a_3x3", x, 32, 3, 3, 2);
  x = basicConv2d(b, "Conv2d_2a_3x3", x, 32, 3, 3);
  x = basicConv2d(b, "Conv2d_2b_3x3", x, 64, 3, 3, 1, 1, 1);
  x = maxPool(b, "maxpool1", x, 3, 2);
  x = basicConv2d(b, "Conv2d_3b_1x1", x, 80, 1, 1);
  x = basicConv2d(b, "Conv2d_4a_3x3", x, 192, 3, 3);
  x = maxPool(b, "maxpool2", x, 3, 2);
  // 35x35: 256, 288, 288 channels.
  x = inceptionA(b, "Mixed_5b.", x, 32);
  x = inceptionA(b, "Mixed_5c.", x, 64);
  x = inceptionA(b, "Mixed_5d.", x, 64);
  // 17x17, 768 channels.
  x = inceptionB(b, "Mixed_6a.", x);
  x = inceptionC(b, "Mixed_6b.", x, 128);
  x = inceptionC(b, "Mixed_6c.", x, 160);
  x = inceptionC(b, "Mixed_6d.", x, 160);
  x = inceptionC(b, "Mixed_6e.", x, 192);
  // 8x8: 1280, then 2048 channels.
  x = inceptionD(b, "Mixed_7a.", x);
  x = inceptionE(b, "Mixed_7b.", x);
  x = inceptionE(b, "Mixed_7c.", x);
  // AdaptiveAvgPool2d((1, 1)) exports as GlobalAveragePool; dropout is an
  // identity at inference and not exported.
  x = flatten(b, "flatten", globalAvgPool(b, "avgpool", x));
  b.output(dense(b, "fc", x, 1000), 0);
  return b.take();
}

}  // namespace rammer::samples
