#include "samples/zoo/nasnet_cifar.h"

#include "samples/builder/cnn_layers.h"
#include "samples/zoo/nasnet_cells.h"

namespace rammer::samples {

namespace {
constexpr int64_t kCellsPerStage = 6;   // N
constexpr int64_t kFilters = 32;        // per op in stage 1; 6 * 32 * 4 = 768 at the end
constexpr int64_t kStemMultiplier = 3;  // stem width = 3 * filters
}  // namespace

ir::Graph buildNasNetCifar(const SampleConfig& config) {
  ModelBuilder b("nasnet_cifar", kSampleOpset, config.seed);
  ir::ValueId net = b.input("input", {config.batch, 3, 32, 32}, {kBatchDim});
  net = convBn(b, "stem", net, ConvSpec::square(kStemMultiplier * kFilters, 3, 1, 1));

  // Each cell reads the last two cell outputs; before the first cell there
  // is only the stem.
  std::vector<ir::ValueId> outputs{ir::kNone, net};
  const NasCellSpec normal = nasnetANormalCell(), reduction = nasnetAReductionCell();
  int64_t filters = kFilters;
  int cell = 0, reductionIndex = 0;
  for (int stage = 0; stage < 3; ++stage) {
    if (stage > 0) {
      filters *= 2;
      net = nasnetCell(b, "reduction" + std::to_string(reductionIndex++), reduction, net, outputs[outputs.size() - 2],
                       filters, 2);
      outputs.push_back(net);
    }
    for (int64_t k = 0; k < kCellsPerStage; ++k) {
      net = nasnetCell(b, "cell" + std::to_string(cell++), normal, net, outputs[outputs.size() - 2], filters, 1);
      outputs.push_back(net);
    }
  }
  net = relu(b, "final_relu", net);
  net = flatten(b, "flatten", globalAvgPool(b, "pool", net));
  b.output(dense(b, "fc", net, 10), 0);
  return b.take();
}

}  // namespace rammer::samples
