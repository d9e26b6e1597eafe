#include "core/ops/math/gemm.h"

#include <Eigen/Core>

namespace rammer::ops {

namespace {
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
}  // namespace

void sgemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  Map c(C, M, N, Eigen::OuterStride<>(ldc));
  if (beta == 0.0f) c.setZero();
  else if (beta != 1.0f) c *= beta;
  if (K <= 0 || alpha == 0.0f) return;
  // Stored shapes: A is [M,K] (or [K,M] when transposed), B is [K,N] (or [N,K]).
  ConstMap a(A, transA ? K : M, transA ? M : K, Eigen::OuterStride<>(lda));
  ConstMap b(B, transB ? N : K, transB ? K : N, Eigen::OuterStride<>(ldb));
  if (!transA && !transB) c.noalias() += alpha * a * b;
  else if (transA && !transB) c.noalias() += alpha * a.transpose() * b;
  else if (!transA && transB) c.noalias() += alpha * a * b.transpose();
  else c.noalias() += alpha * a.transpose() * b.transpose();
}

}  // namespace rammer::ops
