#include "samples/zoo/handoff_chain.h"

#include <cmath>
#include <string>

#include "samples/builder/model_builder.h"

namespace rammer::samples {

ir::Graph buildHandoffChain(const SampleConfig& config) {
  ModelBuilder b("handoff_chain", kSampleOpset, config.seed);
  ir::ValueId x = b.input("input", {config.batch, kHandoffChainWidth}, {kBatchDim, ""});
  // Uniform in +-sqrt(3 / width): each link keeps the activation's mean
  // square, so 128 links neither fade to zero nor overflow.
  const float bound = std::sqrt(3.0f / static_cast<float>(kHandoffChainWidth));
  for (int64_t k = 0; k < kHandoffChainLinks; ++k) {
    const std::string name = "link" + std::to_string(k);
    const ir::ValueId w =
        b.constant(name + ".weight", b.rng().uniformTensor({kHandoffChainWidth, kHandoffChainWidth}, bound));
    x = b.op("MatMul", name, {x, w});
  }
  b.output(x, 0);
  return b.take();
}

}  // namespace rammer::samples
