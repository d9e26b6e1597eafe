// Gemm and MatMul. float32 goes through the shared sgemm; float64 and the
// integer types (rare: shape arithmetic, quantised graphs) use a plain loop.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/ops/math/gemm.h"
#include "core/ops/op_registry.h"

namespace rammer::ops {

namespace {

using ir::kUnknownDim;

// C[M,N] += alpha * op(A) * op(B), row-major, for non-float32 types.
// Signed integers accumulate in their unsigned twin: overflow wraps (as
// ONNX Runtime's does in practice) instead of being undefined behaviour.
template <class T>
void gemmLoop(bool transA, bool transB, int64_t M, int64_t N, int64_t K, double alpha, const T* A, int64_t lda,
              const T* B, int64_t ldb, T* C, int64_t ldc) {
  using Acc = typename std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>, std::type_identity<T>>::type;
  std::vector<Acc> row(static_cast<size_t>(N));
  for (int64_t i = 0; i < M; ++i) {
    std::fill(row.begin(), row.end(), Acc{});
    for (int64_t k = 0; k < K; ++k) {
      const Acc a = static_cast<Acc>(transA ? A[k * lda + i] : A[i * lda + k]);
      if (transB)
        for (int64_t j = 0; j < N; ++j) row[j] += a * static_cast<Acc>(B[j * ldb + k]);
      else
        for (int64_t j = 0; j < N; ++j) row[j] += a * static_cast<Acc>(B[k * ldb + j]);
    }
    T* c = C + i * ldc;
    if (alpha == 1.0)
      for (int64_t j = 0; j < N; ++j) c[j] = static_cast<T>(static_cast<Acc>(c[j]) + row[j]);
    else
      for (int64_t j = 0; j < N; ++j) {
        const T scaled = static_cast<T>(alpha * static_cast<double>(static_cast<T>(row[j])));
        c[j] = static_cast<T>(static_cast<Acc>(c[j]) + static_cast<Acc>(scaled));
      }
  }
}

// Same contract for every type: C += alpha * op(A) * op(B).
template <class T>
void gemmAdd(bool transA, bool transB, int64_t M, int64_t N, int64_t K, double alpha, const T* A, int64_t lda,
             const T* B, int64_t ldb, T* C, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>)
    sgemm(transA, transB, M, N, K, static_cast<float>(alpha), A, lda, B, ldb, 1.0f, C, ldc);
  else
    gemmLoop<T>(transA, transB, M, N, K, alpha, A, lda, B, ldb, C, ldc);
}

// Calls f(T{}) with the C++ type of a supported numeric dtype.
template <class F>
auto dispatchNumeric(const OpContext& ctx, ir::DType t, F&& f) {
  switch (t) {
    case ir::DType::Float32: return f(float{});
    case ir::DType::Float64: return f(double{});
    case ir::DType::Int32: return f(int32_t{});
    case ir::DType::Int64: return f(int64_t{});
    case ir::DType::UInt32: return f(uint32_t{});
    case ir::DType::UInt64: return f(uint64_t{});
    default: ctx.fail("cannot compute " + std::string(ir::dtypeName(t)));
  }
}

const std::initializer_list<ir::DType> kNumeric = {ir::DType::Float32, ir::DType::Float64, ir::DType::Float16,
                                                   ir::DType::Int32,   ir::DType::Int64,   ir::DType::UInt32,
                                                   ir::DType::UInt64};

void expectSameDType(const OpContext& ctx, size_t i, const char* name) {
  if (ctx.dtype(i) != ctx.dtype(0))
    ctx.fail(std::string(name) + " has type " + std::string(ir::dtypeName(ctx.dtype(i))) + " but A has " +
             std::string(ir::dtypeName(ctx.dtype(0))));
}

// Two extents that must agree; the known one wins.
int64_t agree(const OpContext& ctx, int64_t a, int64_t b, const std::string& what) {
  if (a >= 0 && b >= 0 && a != b) ctx.fail(what);
  return a >= 0 ? a : b;
}

// ---- Gemm ----

struct GemmDims {
  int64_t M = kUnknownDim, N = kUnknownDim, K = kUnknownDim;
};

GemmDims gemmDims(const OpContext& ctx) {
  ctx.expectInputs(2, 3);
  ctx.expectDType(0, kNumeric);
  expectSameDType(ctx, 1, "B");
  const bool tA = ctx.attrs().getInt("transA", 0) != 0, tB = ctx.attrs().getInt("transB", 0) != 0;
  const ir::TensorType& a = ctx.type(0);
  const ir::TensorType& b = ctx.type(1);
  if (a.rankKnown && a.shape.size() != 2) ctx.fail("A " + ir::shapeToString(a.shape) + " must be 2-D");
  if (b.rankKnown && b.shape.size() != 2) ctx.fail("B " + ir::shapeToString(b.shape) + " must be 2-D");
  GemmDims d;
  int64_t kA = kUnknownDim, kB = kUnknownDim;
  if (a.rankKnown) {
    d.M = a.shape[tA ? 1 : 0];
    kA = a.shape[tA ? 0 : 1];
  }
  if (b.rankKnown) {
    d.N = b.shape[tB ? 0 : 1];
    kB = b.shape[tB ? 1 : 0];
  }
  d.K = agree(ctx, kA, kB,
              "inner dims differ: A " + ir::shapeToString(a.shape) + (tA ? " (transposed)" : "") + " and B " +
                  ir::shapeToString(b.shape) + (tB ? " (transposed)" : ""));
  if (ctx.has(2)) {
    expectSameDType(ctx, 2, "C");
    const ir::TensorType& c = ctx.type(2);
    if (c.rankKnown) {
      // Unidirectional broadcast of C to [M, N].
      const std::string err = "C " + ir::shapeToString(c.shape) + " does not broadcast to [" +
                              (d.M < 0 ? std::string("?") : std::to_string(d.M)) + ", " +
                              (d.N < 0 ? std::string("?") : std::to_string(d.N)) + "]";
      if (c.shape.size() > 2) ctx.fail(err);
      const int64_t target[2] = {d.M, d.N};
      for (size_t i = 0; i < c.shape.size(); ++i) {
        const int64_t cd = c.shape[c.shape.size() - 1 - i], td = target[1 - i];
        if (cd >= 0 && cd != 1 && td >= 0 && cd != td) ctx.fail(err);
      }
    }
  }
  return d;
}

std::vector<ir::TensorType> inferGemm(const OpContext& ctx) {
  GemmDims d = gemmDims(ctx);
  return {ir::TensorType{ctx.dtype(0), {d.M, d.N}, true}};
}

std::vector<ir::Tensor> computeGemm(const OpContext& ctx) {
  GemmDims d = gemmDims(ctx);
  const bool tA = ctx.attrs().getInt("transA", 0) != 0, tB = ctx.attrs().getInt("transB", 0) != 0;
  const double alpha = ctx.attrs().getFloat("alpha", 1.0f), beta = ctx.attrs().getFloat("beta", 1.0f);
  const ir::Tensor& A = ctx.tensor(0);
  const ir::Tensor& B = ctx.tensor(1);
  ir::Tensor Y(ctx.dtype(0), {d.M, d.N});
  dispatchNumeric(ctx, ctx.dtype(0), [&](auto tag) {
    using T = decltype(tag);
    T* y = Y.data<T>();
    if (ctx.has(2) && beta != 0.0) {
      // Y = beta * broadcast(C), then the product is accumulated onto it.
      const ir::Tensor& C = ctx.tensor(2);
      const T* c = C.data<T>();
      const ir::Shape& cs = C.shape();
      const int64_t cRows = cs.size() == 2 ? cs[0] : 1;
      const int64_t cCols = cs.empty() ? 1 : cs.back();
      for (int64_t i = 0; i < d.M; ++i)
        for (int64_t j = 0; j < d.N; ++j) {
          const T v = c[(cRows == 1 ? 0 : i) * cCols + (cCols == 1 ? 0 : j)];
          y[i * d.N + j] = beta == 1.0 ? v : static_cast<T>(beta * static_cast<double>(v));
        }
    }
    gemmAdd<T>(tA, tB, d.M, d.N, d.K, alpha, A.data<T>(), A.shape()[1], B.data<T>(), B.shape()[1], y, d.N);
  });
  std::vector<ir::Tensor> out;
  out.push_back(std::move(Y));
  return out;
}

double flopsGemm(const OpContext& ctx, std::span<const ir::TensorType> outputs) {
  GemmDims d = gemmDims(ctx);
  if (d.M < 0 || d.N < 0 || d.K < 0) return 0.0;
  const double mn = static_cast<double>(d.M) * static_cast<double>(d.N);
  return 2.0 * mn * static_cast<double>(d.K) + (ctx.has(2) ? mn : 0.0);
}

// ---- MatMul ----

// numpy matmul shapes: 1-D operands are promoted ([K] -> [1, K] for A,
// [K] -> [K, 1] for B) and the promoted dim dropped from the result; the
// leading (batch) dims broadcast.
struct MatMulDims {
  bool rankKnown = false;
  bool vecA = false, vecB = false;
  int64_t M = kUnknownDim, N = kUnknownDim, K = kUnknownDim;
  ir::Shape batch;  // broadcast batch dims
  ir::Shape out;
};

MatMulDims matmulDims(const OpContext& ctx) {
  ctx.expectInputs(2, 2);
  ctx.expectDType(0, kNumeric);
  expectSameDType(ctx, 1, "B");
  const ir::TensorType& a = ctx.type(0);
  const ir::TensorType& b = ctx.type(1);
  MatMulDims d;
  if (a.rankKnown && a.shape.empty()) ctx.fail("A must not be a scalar");
  if (b.rankKnown && b.shape.empty()) ctx.fail("B must not be a scalar");
  if (!a.rankKnown || !b.rankKnown) return d;
  d.rankKnown = true;
  ir::Shape as = a.shape, bs = b.shape;
  d.vecA = as.size() == 1;
  d.vecB = bs.size() == 1;
  if (d.vecA) as.insert(as.begin(), 1);
  if (d.vecB) bs.push_back(1);
  d.M = as[as.size() - 2];
  d.N = bs.back();
  d.K = agree(ctx, as.back(), bs[bs.size() - 2],
              "inner dims differ: A " + ir::shapeToString(a.shape) + " and B " + ir::shapeToString(b.shape));
  const size_t ra = as.size() - 2, rb = bs.size() - 2, r = std::max(ra, rb);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i + ra >= r ? as[i + ra - r] : 1;
    const int64_t db = i + rb >= r ? bs[i + rb - r] : 1;
    int64_t o;
    if (da == 1) o = db;
    else if (db == 1) o = da;
    else if (da < 0) o = db;  // db is unknown or > 1: either way it fixes the extent
    else if (db < 0) o = da;
    else if (da == db) o = da;
    else
      ctx.fail("batch dims of A " + ir::shapeToString(a.shape) + " and B " + ir::shapeToString(b.shape) +
               " do not broadcast");
    d.batch.push_back(o);
  }
  d.out = d.batch;
  if (!d.vecA) d.out.push_back(d.M);
  if (!d.vecB) d.out.push_back(d.N);
  return d;
}

std::vector<ir::TensorType> inferMatMul(const OpContext& ctx) {
  MatMulDims d = matmulDims(ctx);
  if (!d.rankKnown) return {ir::TensorType{ctx.dtype(0), {}, false}};
  return {ir::TensorType{ctx.dtype(0), d.out, true}};
}

// Element strides of an operand's batch dims aligned to the broadcast batch
// shape (0 where the operand has no such dim or extent 1).
std::vector<int64_t> batchStrides(const ir::Shape& shape, bool vec, const ir::Shape& batch, int64_t matrixSize) {
  const size_t own = vec ? 0 : shape.size() - 2;
  std::vector<int64_t> strides(batch.size(), 0);
  int64_t s = matrixSize;
  for (size_t i = 0; i < own; ++i) {
    const size_t src = own - 1 - i, dst = batch.size() - 1 - i;
    strides[dst] = shape[src] == 1 ? 0 : s;
    s *= shape[src];
  }
  return strides;
}

std::vector<ir::Tensor> computeMatMul(const OpContext& ctx) {
  MatMulDims d = matmulDims(ctx);
  const ir::Tensor& A = ctx.tensor(0);
  const ir::Tensor& B = ctx.tensor(1);
  ir::Tensor Y(ctx.dtype(0), d.out);
  const int64_t M = d.M, N = d.N, K = d.K;
  int64_t batches = 1;
  for (int64_t x : d.batch) batches *= x;
  const std::vector<int64_t> sa = batchStrides(A.shape(), d.vecA, d.batch, M * K);
  const std::vector<int64_t> sb = batchStrides(B.shape(), d.vecB, d.batch, K * N);
  bool bShared = true;  // B is one matrix for every batch
  for (int64_t s : sb) bShared = bShared && s == 0;
  bool aDense = true;  // A's batches are laid out back to back, one per output batch
  {
    int64_t expect = M * K;
    for (size_t i = d.batch.size(); i-- > 0;) {
      if (d.batch[i] != 1 && sa[i] != expect) aDense = false;
      expect *= d.batch[i];
    }
  }
  dispatchNumeric(ctx, ctx.dtype(0), [&](auto tag) {
    using T = decltype(tag);
    const T* a = A.data<T>();
    const T* b = B.data<T>();
    T* y = Y.data<T>();
    if (batches == 0 || M == 0 || N == 0) return;
    if (bShared && aDense) {
      // [batch*M, K] x [K, N] in one product (the common Linear-layer case).
      gemmAdd<T>(false, false, batches * M, N, K, 1.0, a, K, b, N, y, N);
      return;
    }
    std::vector<int64_t> idx(d.batch.size(), 0);
    for (int64_t bi = 0; bi < batches; ++bi) {
      int64_t offA = 0, offB = 0;
      for (size_t i = 0; i < idx.size(); ++i) {
        offA += idx[i] * sa[i];
        offB += idx[i] * sb[i];
      }
      gemmAdd<T>(false, false, M, N, K, 1.0, a + offA, K, b + offB, N, y + bi * M * N, N);
      for (size_t i = idx.size(); i-- > 0;) {
        if (++idx[i] < d.batch[i]) break;
        idx[i] = 0;
      }
    }
  });
  std::vector<ir::Tensor> out;
  out.push_back(std::move(Y));
  return out;
}

double flopsMatMul(const OpContext& ctx, std::span<const ir::TensorType> outputs) {
  MatMulDims d = matmulDims(ctx);
  if (!d.rankKnown || d.K < 0 || outputs.empty() || !outputs[0].fullyKnown()) return 0.0;
  // Output elements times K multiply-adds each.
  return 2.0 * static_cast<double>(ir::numElements(outputs[0].shape)) * static_cast<double>(d.K);
}

}  // namespace

void registerMatMulOps(OpRegistry& r) {
  r.add(OpDef{.type = "Gemm", .category = OpCategory::MatMul, .infer = inferGemm, .compute = computeGemm,
              .flops = flopsGemm});
  r.add(OpDef{.type = "MatMul", .category = OpCategory::MatMul, .infer = inferMatMul, .compute = computeMatMul,
              .flops = flopsMatMul});
}

}  // namespace rammer::ops
