#include "samples/zoo/squeezenet.h"

#include "samples/builder/cnn_layers.h"

namespace rammer::samples {

namespace {

ir::ValueId convRelu(ModelBuilder& b, const std::string& name, const std::string& reluName, ir::ValueId x,
                     int64_t out, int64_t k, int64_t stride = 1, int64_t pad = 0) {
  ConvSpec s = ConvSpec::square(out, k, stride, pad);
  s.bias = true;
  return relu(b, reluName, conv(b, name, x, s));
}

ir::ValueId fire(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t squeeze, int64_t expand) {
  x = convRelu(b, name + ".squeeze", name + ".squeeze_activation", x, squeeze, 1);
  const ir::ValueId e1 = convRelu(b, name + ".expand1x1", name + ".expand1x1_activation", x, expand, 1);
  const ir::ValueId e3 = convRelu(b, name + ".expand3x3", name + ".expand3x3_activation", x, expand, 3, 1, 1);
  return concat(b, name + ".concat", {e1, e3});
}

// nn.MaxPool2d(3, 2, ceil_mode=True). On this network's odd sides (111, 55,
// 27) ceil and floor give the same output (55, 27, 13); ceil_mode is written
// anyway so the file says what torchvision's export says.
ir::ValueId pool(ModelBuilder& b, const std::string& name, ir::ValueId x) {
  return maxPool(b, name, x, 3, 2, {}, /*ceilMode=*/true);
}

}  // namespace

ir::Graph buildSqueezeNet(const SampleConfig& config) {
  ModelBuilder b("squeezenet", kSampleOpset, config.seed);
  ir::ValueId x = b.input("input", {config.batch, 3, 224, 224}, {kBatchDim});
  x = convRelu(b, "features.0", "features.1", x, 64, 3, 2);  // 111x111
  x = pool(b, "features.2", x);                                // 55x55
  x = fire(b, "features.3", x, 16, 64);
  x = fire(b, "features.4", x, 16, 64);
  x = pool(b, "features.5", x);  // 27x27
  x = fire(b, "features.6", x, 32, 128);
  x = fire(b, "features.7", x, 32, 128);
  x = pool(b, "features.8", x);  // 13x13
  x = fire(b, "features.9", x, 48, 192);
  x = fire(b, "features.10", x, 48, 192);
  x = fire(b, "features.11", x, 64, 256);
  x = fire(b, "features.12", x, 64, 256);
  // classifier.0 is dropout, an identity at inference and not exported.
  x = convRelu(b, "classifier.1", "classifier.2", x, 1000, 1);
  x = globalAvgPool(b, "classifier.3", x);
  b.output(flatten(b, "flatten", x), 0);
  return b.take();
}

}  // namespace rammer::samples
