#include "samples/zoo/resnext29.h"

#include "samples/builder/cnn_layers.h"

namespace rammer::samples {

namespace {

constexpr int64_t kCardinality = 16;
constexpr int64_t kBaseWidth = 64;  // channels per group in stage 1 ("64d")
constexpr int64_t kBlocksPerStage = 3;

// Bottleneck block: 1x1 reduce to width C*d, grouped 3x3 (C groups), 1x1
// expand to 4*planes; projection shortcut when the shape changes.
ir::ValueId bottleneck(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t planes, int64_t stride) {
  const int64_t width = kCardinality * planes * kBaseWidth / 64;
  const int64_t out = 4 * planes;
  ir::ValueId y = convBnRelu(b, name + ".conv1", x, ConvSpec::square(width, 1));
  ConvSpec grouped = ConvSpec::square(width, 3, stride, 1);
  grouped.groups = kCardinality;
  y = convBnRelu(b, name + ".conv2", y, grouped);
  y = convBn(b, name + ".conv3", y, ConvSpec::square(out, 1));
  ir::ValueId shortcut = x;
  if (stride != 1 || b.channels(x) != out) shortcut = convBn(b, name + ".shortcut", x, ConvSpec::square(out, 1, stride));
  return relu(b, name + ".relu", add(b, name + ".add", y, shortcut));
}

}  // namespace

ir::Graph buildResNeXt29(const SampleConfig& config) {
  ModelBuilder b("resnext29_cifar", kSampleOpset, config.seed);
  ir::ValueId x = b.input("input", {config.batch, 3, 32, 32}, {kBatchDim});
  x = convBnRelu(b, "stem", x, ConvSpec::square(64, 3, 1, 1));
  const int64_t planes[] = {64, 128, 256};  // stage outputs 256, 512, 1024
  for (int stage = 0; stage < 3; ++stage)
    for (int64_t block = 0; block < kBlocksPerStage; ++block)
      x = bottleneck(b, "stage" + std::to_string(stage + 1) + ".block" + std::to_string(block), x, planes[stage],
                     stage > 0 && block == 0 ? 2 : 1);
  x = flatten(b, "flatten", globalAvgPool(b, "pool", x));
  b.output(dense(b, "fc", x, 10), 0);
  return b.take();
}

}  // namespace rammer::samples
