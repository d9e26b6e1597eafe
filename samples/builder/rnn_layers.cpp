#include "samples/builder/rnn_layers.h"

#include <cmath>

namespace rammer::samples {

LstmLayer lstm(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t hidden, ir::ValueId h0,
               ir::ValueId c0) {
  const int64_t in = b.shape(x).at(2);
  const float bound = 1.0f / std::sqrt(static_cast<float>(hidden));
  WeightRng& r = b.rng();
  const ir::ValueId W = b.constant(name + ".W", r.uniformTensor({1, 4 * hidden, in}, bound));
  const ir::ValueId R = b.constant(name + ".R", r.uniformTensor({1, 4 * hidden, hidden}, bound));
  const ir::ValueId B = b.constant(name + ".B", r.uniformTensor({1, 8 * hidden}, bound));
  std::vector<ir::ValueId> inputs{x, W, R, B};
  if (h0 != ir::kNone || c0 != ir::kNone) {
    inputs.push_back(ir::kNone);  // sequence_lens: every sequence is full length
    inputs.push_back(h0);
    inputs.push_back(c0);
  }
  // All three outputs are declared, as PyTorch exports them, even where only
  // Y is used: one node shape for every layer.
  const auto outs = b.node("LSTM", name, std::move(inputs), attrs({{"hidden_size", hidden}}), {"Y", "Y_h", "Y_c"});
  LstmLayer layer;
  layer.y = b.op("Squeeze", name + ".squeeze", {outs[0], b.ints({1})});
  layer.yh = outs[1];
  layer.yc = outs[2];
  return layer;
}

std::vector<LstmLayer> lstmStack(ModelBuilder& b, const std::string& prefix, ir::ValueId x, int64_t layers,
                                 int64_t hidden, const std::vector<LstmLayer>& initial) {
  std::vector<LstmLayer> out;
  for (int64_t k = 0; k < layers; ++k) {
    const auto i = static_cast<size_t>(k);
    const ir::ValueId h0 = i < initial.size() ? initial[i].yh : ir::kNone;
    const ir::ValueId c0 = i < initial.size() ? initial[i].yc : ir::kNone;
    out.push_back(lstm(b, prefix + ".lstm" + std::to_string(k), x, hidden, h0, c0));
    x = out.back().y;
  }
  return out;
}

ir::ValueId sequenceDense(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out) {
  const int64_t in = b.shape(x).at(2);
  const float bound = 1.0f / std::sqrt(static_cast<float>(in));
  const ir::ValueId w = b.constant(name + ".weight", b.rng().uniformTensor({in, out}, bound));
  const ir::ValueId bias = b.constant(name + ".bias", b.rng().uniformTensor({out}, bound));
  const ir::ValueId product = b.op("MatMul", name + ".matmul", {x, w});
  return b.op("Add", name, {product, bias});
}

}  // namespace rammer::samples
