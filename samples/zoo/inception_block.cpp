#include "samples/zoo/inception_block.h"

#include "samples/zoo/inception_modules.h"

namespace rammer::samples {

ir::Graph buildInceptionBlock(const SampleConfig& config) {
  ModelBuilder b("inception_block", kSampleOpset, config.seed);
  const ir::ValueId x = b.input("input", {config.batch, 192, 35, 35}, {kBatchDim});
  // Mixed_5b alone, its nodes named without the block prefix.
  b.output(inceptionA(b, "", x, 32), 0);
  return b.take();
}

}  // namespace rammer::samples
