#include "core/passes/batchnorm_folding.h"

#include <algorithm>
#include <cmath>

namespace rammer::passes {

namespace {

// Per-channel scale s = gamma / sqrt(var + eps) and shift t = beta - mean * s.
bool bnScaleShift(const ir::Graph& g, const ir::Node& bn, int64_t channels, std::vector<float>& s,
                  std::vector<float>& t) {
  const ir::Tensor* gamma = ir::floatConstant(g, bn.input(1));
  const ir::Tensor* beta = ir::floatConstant(g, bn.input(2));
  const ir::Tensor* mean = ir::floatConstant(g, bn.input(3));
  const ir::Tensor* var = ir::floatConstant(g, bn.input(4));
  if (!gamma || !beta || !mean || !var) return false;
  for (const ir::Tensor* p : {gamma, beta, mean, var})
    if (p->numel() != channels) return false;
  const float eps = bn.attrs.getFloat("epsilon", 1e-5f);
  s.resize(static_cast<size_t>(channels));
  t.resize(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    s[c] = gamma->data<float>()[c] / std::sqrt(var->data<float>()[c] + eps);
    t[c] = beta->data<float>()[c] - mean->data<float>()[c] * s[c];
  }
  return true;
}

ir::ValueId addConstant(ir::Graph& g, const std::string& base, ir::Tensor t) {
  ir::ValueId v = g.addValue(g.uniqueValueName(base), t.type());
  g.value(v).constant = std::move(t);
  return v;
}

// Conv: W [Cout, Cin/g, k...] scaled per output channel; bias b' = b*s + t.
bool foldIntoConv(ir::Graph& g, ir::NodeId convId, const ir::Node& bn) {
  const ir::Node& conv = g.node(convId);
  const ir::Tensor* w = ir::floatConstant(g, conv.input(1));
  if (!w || w->rank() < 3) return false;
  const int64_t cout = w->shape()[0];
  std::vector<float> s, t;
  if (!bnScaleShift(g, bn, cout, s, t)) return false;
  const ir::Tensor* b = conv.input(2) == ir::kNone ? nullptr : ir::floatConstant(g, conv.input(2));
  if (conv.input(2) != ir::kNone && (!b || b->numel() != cout)) return false;

  ir::Tensor w2 = *w;
  const int64_t per = w->numel() / cout;
  float* wd = w2.data<float>();
  for (int64_t c = 0; c < cout; ++c)
    for (int64_t i = 0; i < per; ++i) wd[c * per + i] *= s[c];
  ir::Tensor b2(ir::DType::Float32, {cout});
  for (int64_t c = 0; c < cout; ++c) b2.data<float>()[c] = (b ? b->data<float>()[c] : 0.0f) * s[c] + t[c];

  const std::string name = conv.name;
  ir::ValueId wv = addConstant(g, name + ".w_bn", std::move(w2));
  ir::ValueId bv = addConstant(g, name + ".b_bn", std::move(b2));
  g.setNodeInput(convId, 1, wv);
  g.setNodeInput(convId, 2, bv);
  return true;
}

// Gemm: Y = alpha*A*op(B) + beta*C; BN scales output column n.
bool foldIntoGemm(ir::Graph& g, ir::NodeId gemmId, const ir::Node& bn) {
  const ir::Node& gemm = g.node(gemmId);
  const ir::Tensor* bmat = ir::floatConstant(g, gemm.input(1));
  if (!bmat || bmat->rank() != 2) return false;
  const bool transB = gemm.attrs.getInt("transB", 0) != 0;
  const int64_t n = transB ? bmat->shape()[0] : bmat->shape()[1];
  const int64_t k = transB ? bmat->shape()[1] : bmat->shape()[0];
  std::vector<float> s, t;
  if (!bnScaleShift(g, bn, n, s, t)) return false;
  const ir::Tensor* c = gemm.input(2) == ir::kNone ? nullptr : ir::floatConstant(g, gemm.input(2));
  if (gemm.input(2) != ir::kNone && !c) return false;
  // Only a per-column (or scalar) C folds into a [N] bias.
  if (c && !(c->numel() == 1 || (c->numel() == n && c->shape().back() == n))) return false;
  const float beta = gemm.attrs.getFloat("beta", 1.0f);

  ir::Tensor b2 = *bmat;
  float* bd = b2.data<float>();
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) (transB ? bd[j * k + i] : bd[i * n + j]) *= s[j];
  ir::Tensor c2(ir::DType::Float32, {n});
  for (int64_t j = 0; j < n; ++j) {
    const float cj = c ? c->data<float>()[c->numel() == 1 ? 0 : j] : 0.0f;
    c2.data<float>()[j] = beta * cj * s[j] + t[j];
  }
  const std::string name = gemm.name;
  ir::ValueId bv = addConstant(g, name + ".b_bn", std::move(b2));
  ir::ValueId cv = addConstant(g, name + ".c_bn", std::move(c2));
  g.setNodeInput(gemmId, 1, bv);
  g.setNodeInput(gemmId, 2, cv);
  g.node(gemmId).attrs.set("beta", 1.0f);
  return true;
}

}  // namespace

PassResult BatchNormFolding::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    auto bnId = static_cast<ir::NodeId>(i);
    const ir::Node& bn = g.node(bnId);
    if (bn.removed || bn.opType != "BatchNormalization" || !bn.domain.empty()) continue;
    if (bn.outputs.size() > 1 && std::any_of(bn.outputs.begin() + 1, bn.outputs.end(),
                                             [](ir::ValueId v) { return v != ir::kNone; }))
      continue;  // training outputs
    const ir::ValueId x = bn.input(0);
    const ir::Value& xv = g.value(x);
    if (xv.producer == ir::kNone || xv.consumers.size() != 1 || xv.isGraphOutput) continue;
    const ir::NodeId prodId = xv.producer;
    const std::string prodOp = g.node(prodId).opType;
    if (!g.node(prodId).domain.empty()) continue;
    bool folded = false;
    if (prodOp == "Conv") folded = foldIntoConv(g, prodId, bn);
    else if (prodOp == "Gemm" && xv.type.rankKnown && xv.type.shape.size() == 2) folded = foldIntoGemm(g, prodId, bn);
    if (!folded) continue;
    // The producer now writes the BN's output value directly.
    const ir::ValueId y = bn.output(0);
    const std::string bnName = bn.name;
    g.removeNode(bnId);
    for (ir::ValueId& out : g.node(prodId).outputs)
      if (out == x) out = y;
    g.value(y).producer = prodId;
    g.value(x).producer = ir::kNone;
    ctx.note("folded BatchNormalization '" + bnName + "' into " + prodOp + " '" + g.node(prodId).name + "'");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
