#include "samples/builder/transformer_layers.h"

#include <cmath>

namespace rammer::samples {

namespace {

ir::ValueId scalar(ModelBuilder& b, const std::string& name, float v) {
  return b.constant(name, ir::Tensor::fromVector<float>({}, {v}));
}

}  // namespace

ir::ValueId linear(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out) {
  const int64_t in = b.shape(x).back();
  const float bound = 1.0f / std::sqrt(static_cast<float>(in));
  const ir::ValueId w = b.constant(name + ".weight", b.rng().uniformTensor({in, out}, bound));
  const ir::ValueId bias = b.constant(name + ".bias", b.rng().uniformTensor({out}, bound));
  return b.op("Add", name + ".add", {b.op("MatMul", name, {x, w}), bias});
}

ir::ValueId layerNorm(ModelBuilder& b, const std::string& name, ir::ValueId x) {
  const int64_t h = b.shape(x).back();
  const ir::ValueId scale = b.constant(name + ".weight", b.rng().rangeTensor({h}, 0.9f, 1.1f));
  const ir::ValueId bias = b.constant(name + ".bias", b.rng().uniformTensor({h}, 0.1f));
  return b.op("LayerNormalization", name, {x, scale, bias}, attrs({{"axis", int64_t{-1}}, {"epsilon", 1e-5f}}));
}

ir::ValueId geluErf(ModelBuilder& b, const std::string& name, ir::ValueId x) {
  const ir::ValueId e = b.op("Erf", name + ".erf", {b.op("Div", name + ".div", {x, scalar(b, name + ".sqrt2", std::sqrt(2.0f))})});
  const ir::ValueId g = b.op("Mul", name + ".gate", {x, b.op("Add", name + ".one_plus", {e, scalar(b, name + ".one", 1.0f)})});
  return b.op("Mul", name, {g, scalar(b, name + ".half", 0.5f)});
}

ir::ValueId geluTanh(ModelBuilder& b, const std::string& name, ir::ValueId x) {
  const ir::ValueId cube = b.op("Pow", name + ".cube", {x, scalar(b, name + ".three", 3.0f)});
  const ir::ValueId poly =
      b.op("Add", name + ".poly", {x, b.op("Mul", name + ".k", {cube, scalar(b, name + ".k0", 0.044715f)})});
  const ir::ValueId t = b.op("Tanh", name + ".tanh",
                             {b.op("Mul", name + ".scale", {poly, scalar(b, name + ".k1", std::sqrt(2.0f / 3.14159265f))})});
  const ir::ValueId g = b.op("Mul", name + ".gate", {x, b.op("Add", name + ".one_plus", {t, scalar(b, name + ".one", 1.0f)})});
  return b.op("Mul", name, {g, scalar(b, name + ".half", 0.5f)});
}

ir::ValueId causalMask(ModelBuilder& b, const std::string& name, int64_t seq) {
  ir::Attributes one;
  one.set("value", ir::Tensor::fromVector<float>({1}, {1.0f}));
  const ir::ValueId ones = b.op("ConstantOfShape", name + ".ones", {b.ints({seq, seq})}, one);
  const ir::ValueId lower = b.op("Trilu", name + ".tril", {ones}, attrs({{"upper", int64_t{0}}}));
  const ir::ValueId future = b.op("Equal", name + ".future", {lower, scalar(b, name + ".zero", 0.0f)});
  return b.op("Where", name, {future, scalar(b, name + ".ninf", -1e9f), scalar(b, name + ".pass", 0.0f)});
}

ir::ValueId selfAttention(ModelBuilder& b, const std::string& name, ir::ValueId x, const TransformerShape& s,
                          std::optional<ir::ValueId> mask) {
  const int64_t dh = s.hidden / s.heads;
  // [B, S, H] -> [B, heads, S, dh]; Reshape's 0 keeps the (maybe symbolic) batch.
  auto heads = [&](const std::string& part, const std::vector<int64_t>& perm) {
    const ir::ValueId p = linear(b, name + "." + part, x, s.hidden);
    const ir::ValueId r = b.op("Reshape", name + "." + part + ".split", {p, b.ints({0, s.seq, s.heads, dh})});
    return b.op("Transpose", name + "." + part + ".heads", {r}, attrs({{"perm", perm}}));
  };
  const ir::ValueId q = heads("query", {0, 2, 1, 3});
  const ir::ValueId kT = heads("key", {0, 2, 3, 1});  // [B, heads, dh, S]
  const ir::ValueId v = heads("value", {0, 2, 1, 3});
  ir::ValueId scores = b.op("MatMul", name + ".scores", {q, kT});
  scores = b.op("Mul", name + ".scaled", {scores, scalar(b, name + ".scale", 1.0f / std::sqrt(static_cast<float>(dh)))});
  if (mask) scores = b.op("Add", name + ".masked", {scores, *mask});
  const ir::ValueId p = b.op("Softmax", name + ".softmax", {scores}, attrs({{"axis", int64_t{-1}}}));
  const ir::ValueId ctx = b.op("MatMul", name + ".context", {p, v});
  const ir::ValueId merged = b.op("Transpose", name + ".merge", {ctx}, attrs({{"perm", std::vector<int64_t>{0, 2, 1, 3}}}));
  const ir::ValueId flat = b.op("Reshape", name + ".flat", {merged, b.ints({0, s.seq, s.hidden})});
  return linear(b, name + ".out", flat, s.hidden);
}

ir::ValueId feedForward(ModelBuilder& b, const std::string& name, ir::ValueId x, const TransformerShape& s,
                        bool tanhGelu) {
  const ir::ValueId up = linear(b, name + ".up", x, s.ffn);
  const ir::ValueId act = tanhGelu ? geluTanh(b, name + ".gelu", up) : geluErf(b, name + ".gelu", up);
  return linear(b, name + ".down", act, s.hidden);
}

}  // namespace rammer::samples
