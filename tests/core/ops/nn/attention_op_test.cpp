// com.rammer::Attention (issue #16 item 3): the reference against plain
// loops of its definition, a broadcast mask, and the shapes it refuses.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ops/nn/attention_op.h"
#include "tests/core/ops/tensor_test_util.h"

namespace rammer::ops::testing {
namespace {

ir::Tensor wave(ir::Shape s, float f) {
  ir::Tensor t(ir::DType::Float32, std::move(s));
  auto v = t.values<float>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(f * static_cast<float>(i + 1));
  return t;
}

NodeCase attention(float scale) {
  NodeCase n("Attention");
  n.domain(kRammerDomain);
  n.attr("scale", scale);
  return n;
}

TEST(AttentionOp, MatchesItsDefinitionWithABroadcastMask) {
  const int64_t B = 2, H = 3, S = 5, K = 7, D = 4, DV = 6;
  const ir::Tensor q = wave({B, H, S, D}, 0.3f), kt = wave({B, H, D, K}, 0.7f), v = wave({B, H, K, DV}, 1.1f);
  // [S, K] mask broadcast over batch and heads: a causal band with -inf.
  ir::Tensor mask(ir::DType::Float32, {S, K});
  for (int64_t i = 0; i < S; ++i)
    for (int64_t j = 0; j < K; ++j) mask.data<float>()[i * K + j] = j > i + 2 ? -INFINITY : 0.1f * static_cast<float>(j);
  const ir::Tensor out = attention(0.5f).in(q).in(kt).in(v).in(mask).compute1();
  ASSERT_EQ(out.shape(), (ir::Shape{B, H, S, DV}));
  for (int64_t b = 0; b < B * H; ++b)
    for (int64_t i = 0; i < S; ++i) {
      std::vector<double> p(static_cast<size_t>(K));
      double m = -INFINITY, sum = 0;
      for (int64_t j = 0; j < K; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < D; ++d) dot += double(q.data<float>()[(b * S + i) * D + d]) * kt.data<float>()[(b * D + d) * K + j];
        p[static_cast<size_t>(j)] = 0.5 * dot + mask.data<float>()[i * K + j];
        m = std::max(m, p[static_cast<size_t>(j)]);
      }
      for (double& x : p) sum += (x = std::exp(x - m));
      for (int64_t e = 0; e < DV; ++e) {
        double want = 0;
        for (int64_t j = 0; j < K; ++j) want += p[static_cast<size_t>(j)] / sum * v.data<float>()[(b * K + j) * DV + e];
        EXPECT_NEAR(out.data<float>()[(b * S + i) * DV + e], want, 1e-5) << b << " " << i << " " << e;
      }
    }
}

TEST(AttentionOp, RefusesShapesThatDoNotFit) {
  const ir::Tensor q = wave({2, 3, 4}, 0.1f);
  EXPECT_THROW(attention(1).in(q).in(wave({2, 5, 6}, 0.2f)).in(wave({2, 6, 3}, 0.3f)).infer(), OpError);  // depth
  EXPECT_THROW(attention(1).in(q).in(wave({2, 4, 6}, 0.2f)).in(wave({2, 5, 3}, 0.3f)).infer(), OpError);  // keys
  EXPECT_THROW(attention(1).in(q).in(wave({1, 4, 6}, 0.2f)).in(wave({1, 6, 3}, 0.3f)).infer(), OpError);  // batch
  EXPECT_THROW(attention(1).in(q).in(wave({2, 4, 6}, 0.2f)).in(wave({2, 6, 3}, 0.3f)).in(wave({2, 2, 6}, 0.4f)).infer(),
               OpError);  // mask
  EXPECT_EQ(attention(1).in(q).in(wave({2, 4, 6}, 0.2f)).in(wave({2, 6, 5}, 0.3f)).infer1().shape, (ir::Shape{2, 3, 5}));
}

}  // namespace
}  // namespace rammer::ops::testing
