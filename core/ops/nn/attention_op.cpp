#include "core/ops/nn/attention_op.h"

#include <cmath>
#include <limits>

#include "core/ops/op_registry.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops {

int64_t AttentionShape::batches() const {
  int64_t n = 1;
  for (int64_t d : batch) n *= d;
  return n;
}

int64_t AttentionShape::maskOffset(int64_t b, int64_t i, int64_t j) const {
  const size_t r = batch.size();
  int64_t off = i * maskStride[r] + j * maskStride[r + 1];
  for (size_t k = r; k-- > 0;) {
    off += (b % batch[k]) * maskStride[k];
    b /= batch[k];
  }
  return off;
}

AttentionShape AttentionShape::of(const ir::Shape& q, const ir::Shape& kt, const ir::Shape& v, const ir::Shape* mask) {
  if (q.size() < 2 || kt.size() != q.size() || v.size() != q.size())
    throw OpError("Q, KT and V must have one rank of at least 2 (got " + ir::shapeToString(q) + ", " +
                  ir::shapeToString(kt) + ", " + ir::shapeToString(v) + ")");
  const size_t r = q.size() - 2;
  AttentionShape s;
  s.batch.assign(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(r));
  for (size_t k = 0; k < r; ++k)
    if (kt[k] != q[k] || v[k] != q[k])
      throw OpError("Q " + ir::shapeToString(q) + ", KT " + ir::shapeToString(kt) + " and V " + ir::shapeToString(v) +
                    " differ in their leading dims");
  s.sq = q[r];
  s.d = q[r + 1];
  s.sk = kt[r + 1];
  s.dv = v[r + 1];
  if (kt[r] != s.d) throw OpError("KT " + ir::shapeToString(kt) + " does not have Q's depth " + std::to_string(s.d));
  if (v[r] != s.sk) throw OpError("V " + ir::shapeToString(v) + " does not have KT's " + std::to_string(s.sk) + " keys");
  if (mask) {
    ir::Shape full = s.batch;
    full.push_back(s.sq);
    full.push_back(s.sk);
    if (mask->size() > full.size()) throw OpError("the mask " + ir::shapeToString(*mask) + " has too many dims");
    const std::vector<int64_t> st = tensor::stridesOf(*mask);
    s.maskStride.assign(full.size(), 0);
    for (size_t k = 0; k < mask->size(); ++k) {
      const size_t at = full.size() - mask->size() + k;
      const int64_t m = (*mask)[k];
      if (m != 1 && m != full[at])
        throw OpError("the mask " + ir::shapeToString(*mask) + " does not broadcast to " + ir::shapeToString(full));
      s.maskStride[at] = m == 1 ? 0 : st[k];
    }
  }
  return s;
}

namespace {

std::vector<ir::TensorType> inferAttention(const OpContext& ctx) {
  ctx.expectInputs(3, 4);
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    if (ctx.has(i)) ctx.expectDType(i, {ir::DType::Float32});
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    if (ctx.has(i) && !ctx.type(i).fullyKnown()) ctx.fail("Attention needs known shapes");
  const ir::Shape* mask = ctx.numInputs() > 3 && ctx.has(3) ? &ctx.shape(3) : nullptr;
  const AttentionShape s = AttentionShape::of(ctx.shape(0), ctx.shape(1), ctx.shape(2), mask);
  ir::Shape out = s.batch;
  out.push_back(s.sq);
  out.push_back(s.dv);
  return {ir::TensorType{ir::DType::Float32, out}};
}

// Straight from the definition, in double: scores, softmax, weighted sum.
std::vector<ir::Tensor> computeAttention(const OpContext& ctx) {
  const ir::TensorType t = inferAttention(ctx).at(0);
  const ir::Shape* maskShape = ctx.numInputs() > 3 && ctx.has(3) ? &ctx.shape(3) : nullptr;
  const AttentionShape s = AttentionShape::of(ctx.shape(0), ctx.shape(1), ctx.shape(2), maskShape);
  const float* q = ctx.tensor(0).data<float>();
  const float* kt = ctx.tensor(1).data<float>();
  const float* v = ctx.tensor(2).data<float>();
  const float* mask = maskShape ? ctx.tensor(3).data<float>() : nullptr;
  const double scale = ctx.attrs().getFloat("scale", 1.0f);
  ir::Tensor out = tensor::makeTensor(ctx, ir::DType::Float32, t.shape);
  float* o = out.data<float>();
  std::vector<double> score(static_cast<size_t>(s.sk));
  for (int64_t b = 0; b < s.batches(); ++b)
    for (int64_t i = 0; i < s.sq; ++i) {
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < s.sk; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < s.d; ++d) dot += double(q[(b * s.sq + i) * s.d + d]) * kt[(b * s.d + d) * s.sk + j];
        double x = scale * dot + (mask ? mask[s.maskOffset(b, i, j)] : 0.0);
        score[static_cast<size_t>(j)] = x;
        m = std::max(m, x);
      }
      double sum = 0;
      for (double& x : score) sum += (x = m == -std::numeric_limits<double>::infinity() ? 0.0 : std::exp(x - m));
      for (int64_t e = 0; e < s.dv; ++e) {
        double acc = 0;
        for (int64_t j = 0; j < s.sk; ++j) acc += score[static_cast<size_t>(j)] * v[(b * s.sk + j) * s.dv + e];
        o[(b * s.sq + i) * s.dv + e] = static_cast<float>(acc / sum);
      }
    }
  return {std::move(out)};
}

}  // namespace

void registerAttentionOps(OpRegistry& r) {
  OpDef def;
  def.type = "Attention";
  def.domain = kRammerDomain;
  def.category = OpCategory::MatMul;
  def.infer = inferAttention;
  def.compute = computeAttention;
  // Q K^T and P V: two multiply-adds per (query, key, depth).
  def.flops = [](const OpContext& ctx, std::span<const ir::TensorType>) {
    try {
      const ir::Shape* mask = ctx.numInputs() > 3 && ctx.has(3) ? &ctx.shape(3) : nullptr;
      const AttentionShape s = AttentionShape::of(ctx.shape(0), ctx.shape(1), ctx.shape(2), mask);
      return 2.0 * static_cast<double>(s.batches() * s.sq * s.sk * (s.d + s.dv));
    } catch (const std::exception&) {
      return 0.0;
    }
  };
  r.add(std::move(def));
}

}  // namespace rammer::ops
