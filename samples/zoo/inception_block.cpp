#include "samples/zoo/inception_block.h"

#include "samples/builder/cnn_layers.h"

namespace rammer::samples {

ir::Graph buildInceptionBlock(const SampleConfig& config) {
  ModelBuilder b("inception_block", kSampleOpset, config.seed);
  const ir::ValueId x = b.input("input", {config.batch, 192, 35, 35}, {kBatchDim});
  constexpr float eps = 1e-3f;  // Inception-V3's BasicConv2d
  auto unit = [&](const std::string& name, ir::ValueId in, int64_t out, int64_t k) {
    return convBnRelu(b, name, in, ConvSpec::square(out, k, 1, k / 2), eps);
  };
  const ir::ValueId branch1 = unit("branch1x1", x, 64, 1);
  const ir::ValueId branch5 = unit("branch5x5_2", unit("branch5x5_1", x, 48, 1), 64, 5);
  ir::ValueId branch3 = unit("branch3x3dbl_1", x, 64, 1);
  branch3 = unit("branch3x3dbl_3", unit("branch3x3dbl_2", branch3, 96, 3), 96, 3);
  // torchvision's F.avg_pool2d counts the zero padding (count_include_pad).
  const ir::ValueId pooled = avgPool(b, "branch_pool.avgpool", x, 3, 1, Pads::all(1), true);
  const ir::ValueId branchPool = unit("branch_pool", pooled, 32, 1);
  b.output(concat(b, "concat", {branch1, branch5, branch3, branchPool}), 0);
  return b.take();
}

}  // namespace rammer::samples
