#include "samples/zoo/nasbench_cells.h"

#include <stdexcept>

#include "samples/builder/cnn_layers.h"

namespace rammer::samples {

namespace {

constexpr int64_t kChannels = 64;

ir::ValueId projection(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t channels) {
  return convBnRelu(b, name, x, ConvSpec::square(channels, 1));
}

// The first `channels` channels of x (NAS-Bench-101 only ever narrows).
ir::ValueId truncate(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t channels) {
  const int64_t have = b.channels(x);
  if (have < channels) throw std::logic_error("NAS-Bench cell: cannot widen " + name + " by truncation");
  if (have == channels) return x;
  return b.op("Slice", name, {x, b.ints({0}), b.ints({channels}), b.ints({1})});
}

ir::ValueId applyOp(ModelBuilder& b, const std::string& name, NasBenchOp op, ir::ValueId x, int64_t channels) {
  switch (op) {
    case NasBenchOp::Conv3x3: return convBnRelu(b, name + ".conv3x3", x, ConvSpec::square(channels, 3, 1, 1));
    case NasBenchOp::Conv1x1: return convBnRelu(b, name + ".conv1x1", x, ConvSpec::square(channels, 1));
    case NasBenchOp::MaxPool3x3: return maxPool(b, name + ".maxpool3x3", x, 3, 1, Pads::all(1));
  }
  throw std::logic_error("unknown NAS-Bench op");
}

ir::ValueId cell(ModelBuilder& b, const std::string& name, const NasBenchCell& c, ir::ValueId x, int64_t outChannels) {
  const int n = c.vertices();
  const std::vector<int64_t> ch = nasBenchVertexChannels(c, b.channels(x), outChannels);
  std::vector<ir::ValueId> vertex{x};
  for (int t = 1; t < n - 1; ++t) {
    const std::string v = name + ".v" + std::to_string(t);
    std::vector<ir::ValueId> in;
    for (int src = 1; src < t; ++src)
      if (c.edge[src][t]) in.push_back(truncate(b, v + ".from" + std::to_string(src), vertex[src], ch[t]));
    if (c.edge[0][t]) in.push_back(projection(b, v + ".proj", x, ch[t]));
    ir::ValueId sum = in[0];
    for (size_t k = 1; k < in.size(); ++k) sum = add(b, v + ".sum" + std::to_string(k), sum, in[k]);
    vertex.push_back(applyOp(b, v, c.ops[static_cast<size_t>(t - 1)], sum, ch[t]));
  }
  std::vector<ir::ValueId> outs;
  for (int src = 1; src < n - 1; ++src)
    if (c.edge[src][n - 1]) outs.push_back(vertex[src]);
  const bool direct = c.edge[0][n - 1];
  if (outs.empty()) return projection(b, name + ".out_proj", x, outChannels);
  ir::ValueId out = outs.size() == 1 ? outs[0] : concat(b, name + ".concat", outs);
  if (direct) out = add(b, name + ".out_add", out, projection(b, name + ".out_proj", x, outChannels));
  return out;
}

}  // namespace

std::vector<NasBenchCell> nasBenchCellsFor(const SampleConfig& config) {
  // A stream of its own, so the cells do not depend on how many weights were
  // drawn before them.
  WeightRng rng(config.seed ^ 0x9E3779B9u);
  std::vector<NasBenchCell> cells;
  for (int64_t k = 0; k < config.nasbenchCells; ++k) cells.push_back(randomNasBenchCell(rng));
  return cells;
}

ir::Graph buildNasBenchCells(const SampleConfig& config) {
  if (config.nasbenchCells < 1) throw std::invalid_argument("nasbench_cells needs at least one cell");
  ModelBuilder b("nasbench_cells", kSampleOpset, config.seed);
  ir::ValueId x = b.input("input", {config.batch, 3, 32, 32}, {kBatchDim});
  x = convBnRelu(b, "stem", x, ConvSpec::square(kChannels, 3, 1, 1));
  const std::vector<NasBenchCell> cells = nasBenchCellsFor(config);
  for (size_t k = 0; k < cells.size(); ++k) x = cell(b, "cell" + std::to_string(k), cells[k], x, kChannels);
  x = flatten(b, "flatten", globalAvgPool(b, "pool", x));
  b.output(dense(b, "fc", x, 10), 0);
  return b.take();
}

ir::Graph buildNasBenchCell(const NasBenchCell& c, uint32_t seed, int64_t channels, int64_t size) {
  ModelBuilder b("nasbench_cell", kSampleOpset, seed);
  ir::ValueId x = b.input("input", {1, 3, size, size});
  x = convBnRelu(b, "stem", x, ConvSpec::square(channels, 3, 1, 1));
  x = cell(b, "cell", c, x, channels);
  x = flatten(b, "flatten", globalAvgPool(b, "pool", x));
  b.output(dense(b, "fc", x, 10), 0);
  return b.take();
}

}  // namespace rammer::samples
