// Einsum (issue #16 item 1): the forms exports write, worked by hand or by
// plain loops in the test; the implicit output; "..." broadcasting; errors
// that name the label or term.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/core/ops/tensor_test_util.h"

namespace rammer::ops::testing {
namespace {

std::vector<float> floats(const ir::Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

ir::Tensor einsum(const std::string& eq, std::vector<ir::Tensor> ins) {
  NodeCase n("Einsum", 12);
  n.attr("equation", eq);
  for (auto& t : ins) n.in(std::move(t));
  return n.compute1();
}

TEST(EinsumOp, MatrixFormsByHand) {
  const ir::Tensor a = f32({2, 2}, {1, 2, 3, 4}), b = f32({2, 2}, {5, 6, 7, 8});
  EXPECT_EQ(floats(einsum("ij,jk->ik", {a, b})), (std::vector<float>{19, 22, 43, 50}));
  // Implicit output: the labels used once, alphabetically (i, k).
  EXPECT_EQ(floats(einsum("ij,jk", {a, b})), (std::vector<float>{19, 22, 43, 50}));
  EXPECT_EQ(floats(einsum("ij , kj -> ik", {a, b})), (std::vector<float>{17, 23, 39, 53}));  // a·bᵀ, spaces
  const ir::Tensor m = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const ir::Tensor t = einsum("ij->ji", {m});
  EXPECT_EQ(t.shape(), (ir::Shape{3, 2}));
  EXPECT_EQ(floats(t), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(floats(einsum("ij->", {m})), (std::vector<float>{21}));
  EXPECT_EQ(floats(einsum("ij->j", {m})), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(floats(einsum("ii->", {a})), (std::vector<float>{5}));      // trace
  EXPECT_EQ(floats(einsum("ii->i", {a})), (std::vector<float>{1, 4}));  // diagonal
  EXPECT_EQ(floats(einsum("i,j->ij", {f32({2}, {1, 2}), f32({3}, {3, 4, 5})})),
            (std::vector<float>{3, 4, 5, 6, 8, 10}));
}

// Attention scores as exports write them, against plain loops.
TEST(EinsumOp, AttentionScoresMatchLoops) {
  const int64_t B = 2, H = 3, Q = 4, K = 5, D = 6;
  std::vector<float> q(static_cast<size_t>(B * H * Q * D)), k(static_cast<size_t>(B * H * K * D));
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(std::sin(0.3 * static_cast<double>(i)));
  for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>(std::cos(0.7 * static_cast<double>(i)));
  const ir::Tensor s = einsum("bhqd,bhkd->bhqk", {f32({B, H, Q, D}, q), f32({B, H, K, D}, k)});
  ASSERT_EQ(s.shape(), (ir::Shape{B, H, Q, K}));
  const auto got = floats(s);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < Q; ++i)
        for (int64_t j = 0; j < K; ++j) {
          double want = 0;
          for (int64_t d = 0; d < D; ++d)
            want += double(q[static_cast<size_t>(((b * H + h) * Q + i) * D + d)]) *
                    k[static_cast<size_t>(((b * H + h) * K + j) * D + d)];
          EXPECT_NEAR(got[static_cast<size_t>(((b * H + h) * Q + i) * K + j)], want, 1e-5) << b << h << i << j;
        }
}

TEST(EinsumOp, EllipsisBroadcastsLeadingDims) {
  // A batch of two 2x2 matrices times one shared 2x2.
  const ir::Tensor a = f32({2, 2, 2}, {1, 2, 3, 4, 1, 0, 0, 1});
  const ir::Tensor b = f32({2, 2}, {5, 6, 7, 8});
  const ir::Tensor r = einsum("...ij,jk->...ik", {a, b});
  EXPECT_EQ(r.shape(), (ir::Shape{2, 2, 2}));
  EXPECT_EQ(floats(r), (std::vector<float>{19, 22, 43, 50, 5, 6, 7, 8}));
  // Size-1 leading dims broadcast against 3.
  const ir::Tensor c = f32({1, 2, 2}, {1, 2, 3, 4});
  const ir::Tensor d = f32({3, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2, 0, 1, 1, 0});
  const ir::Tensor e = einsum("...ij,...jk->...ik", {c, d});
  EXPECT_EQ(e.shape(), (ir::Shape{3, 2, 2}));
  EXPECT_EQ(floats(e), (std::vector<float>{1, 2, 3, 4, 2, 4, 6, 8, 2, 1, 4, 3}));
  // Implicit output puts the ellipsis dims first.
  EXPECT_EQ(einsum("...ij,...jk", {c, d}).shape(), (ir::Shape{3, 2, 2}));
}

TEST(EinsumOp, InfersShapesWithUnknownBatch) {
  NodeCase n("Einsum", 12);
  n.attr("equation", std::string("bij,bjk->bik"));
  n.in(ir::TensorType{ir::DType::Float32, {ir::kUnknownDim, 2, 3}});
  n.in(ir::TensorType{ir::DType::Float32, {ir::kUnknownDim, 3, 4}});
  EXPECT_EQ(n.infer1().shape, (ir::Shape{ir::kUnknownDim, 2, 4}));
}

TEST(EinsumOp, BadEquationsAreNamed) {
  const ir::Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6}), b = f32({2, 2}, {1, 2, 3, 4});
  auto message = [](const std::string& eq, std::vector<ir::Tensor> ins) {
    try {
      einsum(eq, std::move(ins));
    } catch (const OpError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("ij,jk->ik", {a, b}).find("label 'j' has extents 3 and 2"), std::string::npos);
  EXPECT_NE(message("ij,jk->ik", {a}).find("2 operand terms for 1 inputs"), std::string::npos);
  EXPECT_NE(message("ijk->k", {a}).find("names 3 dims of an operand of rank 2"), std::string::npos);
  EXPECT_NE(message("i1->i", {a}).find("neither a letter"), std::string::npos);
  EXPECT_NE(message("ij->iz", {a}).find("output label 'z' appears in no operand"), std::string::npos);
  EXPECT_NE(message("ij->ii", {a}).find("appears twice"), std::string::npos);
}

}  // namespace
}  // namespace rammer::ops::testing
