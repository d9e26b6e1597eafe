#include "samples/zoo/nasnet_cells.h"

#include <stdexcept>

#include "samples/builder/cnn_layers.h"

namespace rammer::samples {

namespace {

using S = NasOp;

int64_t height(const ModelBuilder& b, ir::ValueId x) { return b.shape(x).at(2); }

ir::ValueId sameConv(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out, int64_t k, int64_t stride,
                     int64_t groups = 1) {
  ConvSpec s{out, k, k, stride, stride, tfSamePads(height(b, x), b.shape(x).at(3), k, stride), groups};
  return conv(b, name, x, s);
}

// ReLU -> 1x1 conv -> BN: how NASNet adapts channel counts.
ir::ValueId reluConvBn(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t filters, int64_t stride = 1) {
  x = relu(b, name + ".relu", x);
  return batchNorm(b, name + ".bn", sameConv(b, name + ".conv", x, filters, 1, stride));
}

// Halves the resolution without losing every other pixel: two strided 1x1
// convs, the second on the input shifted by one pixel, concatenated. (The
// paper's 1x1 average pool with stride 2 followed by a 1x1 conv is exactly a
// 1x1 conv with stride 2.)
ir::ValueId factorizedReduction(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t filters,
                                int64_t stride) {
  if (stride == 1) return batchNorm(b, name + ".bn", sameConv(b, name + ".conv", x, filters, 1, 1));
  const ir::ValueId path1 = sameConv(b, name + ".path1", x, filters / 2, 1, 2);
  const int64_t h = height(b, x), w = b.shape(x).at(3);
  ir::ValueId shifted = b.op("Slice", name + ".shift", {x, b.ints({1, 1}), b.ints({h, w}), b.ints({2, 3})});
  shifted = b.op("Pad", name + ".pad", {shifted, b.ints({0, 0, 0, 0, 0, 0, 1, 1})});
  const ir::ValueId path2 = sameConv(b, name + ".path2", shifted, filters - filters / 2, 1, 2);
  return batchNorm(b, name + ".bn", concat(b, name + ".concat", {path1, path2}));
}

// Two rounds of ReLU -> depthwise kxk -> pointwise 1x1 -> BN; only the first
// depthwise conv is strided.
ir::ValueId stackedSeparable(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t k, int64_t filters,
                             int64_t stride) {
  for (int layer = 1; layer <= 2; ++layer) {
    const std::string n = name + ".sep" + std::to_string(layer);
    x = relu(b, n + ".relu", x);
    x = sameConv(b, n + ".depthwise", x, b.channels(x), k, stride, b.channels(x));
    x = sameConv(b, n + ".pointwise", x, filters, 1, 1);
    x = batchNorm(b, n + ".bn", x);
    stride = 1;
  }
  return x;
}

ir::ValueId applyOp(ModelBuilder& b, const std::string& name, NasOp op, ir::ValueId x, int64_t filters,
                    int64_t stride) {
  switch (op) {
    case S::Sep3x3: return stackedSeparable(b, name, x, 3, filters, stride);
    case S::Sep5x5: return stackedSeparable(b, name, x, 5, filters, stride);
    case S::Sep7x7: return stackedSeparable(b, name, x, 7, filters, stride);
    case S::AvgPool3x3:
    case S::MaxPool3x3: {
      const Pads pads = tfSamePads(height(b, x), b.shape(x).at(3), 3, stride);
      // TensorFlow's 'SAME' average pool divides by the in-image count.
      x = op == S::AvgPool3x3 ? avgPool(b, name + ".avgpool", x, 3, stride, pads, false)
                              : maxPool(b, name + ".maxpool", x, 3, stride, pads);
      if (b.channels(x) != filters) x = batchNorm(b, name + ".bn", sameConv(b, name + ".conv", x, filters, 1, 1));
      return x;
    }
    case S::Identity:
      if (stride > 1 || b.channels(x) != filters) return reluConvBn(b, name, x, filters, stride);
      return x;
  }
  throw std::logic_error("unknown NASNet op");
}

}  // namespace

NasCellSpec nasnetANormalCell() {
  return {{S::Sep5x5, S::Sep3x3, S::Sep5x5, S::Sep3x3, S::AvgPool3x3, S::Identity, S::AvgPool3x3, S::AvgPool3x3,
           S::Sep3x3, S::Identity},
          {0, 1, 1, 1, 0, 1, 1, 1, 0, 0},
          {false, true, true, true, true, true, true}};
}

NasCellSpec nasnetAReductionCell() {
  return {{S::Sep5x5, S::Sep7x7, S::MaxPool3x3, S::Sep7x7, S::AvgPool3x3, S::Sep5x5, S::Identity, S::AvgPool3x3,
           S::Sep3x3, S::MaxPool3x3},
          {0, 1, 0, 1, 0, 1, 3, 2, 2, 0},
          {false, false, false, true, true, true, true}};
}

ir::ValueId nasnetCell(ModelBuilder& b, const std::string& name, const NasCellSpec& spec, ir::ValueId net,
                       ir::ValueId prev, int64_t filters, int64_t stride) {
  // The previous cell's output is brought to this cell's resolution and width;
  // with no previous cell the input itself stands in, unchanged.
  if (prev == ir::kNone) prev = net;
  else if (height(b, prev) != height(b, net))
    prev = factorizedReduction(b, name + ".prev_reduce", relu(b, name + ".prev_relu", prev), filters, 2);
  else if (b.channels(prev) != filters)
    prev = reluConvBn(b, name + ".prev_1x1", prev, filters);
  std::vector<ir::ValueId> states{reluConvBn(b, name + ".input_1x1", net, filters), prev};

  for (size_t k = 0; k < spec.ops.size() / 2; ++k) {
    ir::ValueId sum[2];
    for (size_t side = 0; side < 2; ++side) {
      const auto from = static_cast<size_t>(spec.inputs[2 * k + side]);
      const std::string n = name + ".block" + std::to_string(k) + (side == 0 ? ".left" : ".right");
      sum[side] = applyOp(b, n, spec.ops[2 * k + side], states[from], filters, from < 2 ? stride : 1);
    }
    states.push_back(add(b, name + ".block" + std::to_string(k) + ".add", sum[0], sum[1]));
  }

  // The output states are concatenated; one whose size differs from the
  // last block's is first reduced to it.
  const ir::ValueId last = states.back();
  std::vector<ir::ValueId> outputs;
  for (size_t i = 0; i < states.size(); ++i) {
    if (!spec.output.at(i)) continue;
    ir::ValueId s = states[i];
    const bool otherHeight = height(b, s) != height(b, last);
    if (otherHeight || b.channels(s) != b.channels(last))
      s = factorizedReduction(b, name + ".reduce" + std::to_string(i), s, b.channels(last), otherHeight ? 2 : 1);
    outputs.push_back(s);
  }
  return concat(b, name + ".concat", outputs);
}

}  // namespace rammer::samples
