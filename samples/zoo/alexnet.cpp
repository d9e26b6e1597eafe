#include "samples/zoo/alexnet.h"

#include "samples/builder/cnn_layers.h"

namespace rammer::samples {

ir::Graph buildAlexNet(const SampleConfig& config) {
  ModelBuilder b("alexnet", kSampleOpset, config.seed);
  ir::ValueId x = b.input("input", {config.batch, 3, 224, 224}, {kBatchDim});
  auto convRelu = [&](const std::string& name, int64_t out, int64_t k, int64_t stride, int64_t pad) {
    ConvSpec s = ConvSpec::square(out, k, stride, pad);
    s.bias = true;
    x = relu(b, name + ".relu", conv(b, name, x, s));
  };
  convRelu("features.conv1", 64, 11, 4, 2);
  x = maxPool(b, "features.pool1", x, 3, 2);
  convRelu("features.conv2", 192, 5, 1, 2);
  x = maxPool(b, "features.pool2", x, 3, 2);
  convRelu("features.conv3", 384, 3, 1, 1);
  convRelu("features.conv4", 256, 3, 1, 1);
  convRelu("features.conv5", 256, 3, 1, 1);
  x = maxPool(b, "features.pool3", x, 3, 2);
  // AdaptiveAvgPool2d((6, 6)) on the 6x6 map: PyTorch exports it as a 1x1
  // average pool, kept so the op mix matches torchvision's export.
  x = avgPool(b, "avgpool", x, 1, 1);
  x = flatten(b, "flatten", x);
  // Dropout layers are identities at inference and are not exported.
  x = relu(b, "classifier.fc1.relu", dense(b, "classifier.fc1", x, 4096));
  x = relu(b, "classifier.fc2.relu", dense(b, "classifier.fc2", x, 4096));
  b.output(dense(b, "classifier.fc3", x, 1000), 0);
  return b.take();
}

}  // namespace rammer::samples
