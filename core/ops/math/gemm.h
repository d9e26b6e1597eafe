#pragma once
// Single-precision GEMM used by every reference op that multiplies matrices
// (Conv via im2col, ConvTranspose, Gemm, MatMul, RNN cells):
//   C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C
// Row-major with leading dimensions; op(X) is X or its transpose.
#include <cstdint>

namespace rammer::ops {

void sgemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

}  // namespace rammer::ops
