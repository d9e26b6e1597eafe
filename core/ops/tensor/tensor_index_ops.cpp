// GatherElements and ScatterND (opsets 13-18): element-wise gathering along
// one axis, and writing slices of `updates` at index tuples (a Swin-style
// export builds its shifted-window mask with ScatterND). Negative indices
// count from the end; an index out of range is an error naming it.
#include <algorithm>

#include "core/ops/tensor/tensor_families.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops::tensor {

namespace {

int64_t wrapIndex(const OpContext& ctx, int64_t k, int64_t dim, const std::string& what) {
  if (k < -dim || k >= dim)
    ctx.fail(what + " index " + std::to_string(k) + " is out of range for a dim of size " + std::to_string(dim));
  return k < 0 ? k + dim : k;
}

ir::TensorType inferGatherElements(const OpContext& ctx) {
  ctx.expectInputs(2, 2);
  ctx.expectDType(1, {ir::DType::Int32, ir::DType::Int64});
  const ir::TensorType& data = ctx.type(0);
  const ir::TensorType& idx = ctx.type(1);
  if (data.rankKnown && idx.rankKnown) {
    if (data.shape.size() != idx.shape.size())
      ctx.fail("indices have rank " + std::to_string(idx.shape.size()) + ", data " + std::to_string(data.shape.size()));
    normalizeAxis(ctx.attrs().getInt("axis", 0), static_cast<int64_t>(data.shape.size()));
  }
  return ir::TensorType{data.dtype, idx.shape, idx.rankKnown};
}

std::vector<ir::Tensor> computeGatherElements(const OpContext& ctx) {
  inferGatherElements(ctx);
  const ir::Tensor& data = ctx.tensor(0);
  const ir::Tensor& idx = ctx.tensor(1);
  const auto rank = static_cast<size_t>(data.rank());
  if (rank == 0) ctx.fail("data must have rank >= 1");
  const auto axis = static_cast<size_t>(normalizeAxis(ctx.attrs().getInt("axis", 0), data.rank()));
  const std::vector<int64_t> ds = stridesOf(data.shape());
  ir::Tensor out = makeTensor(ctx, data.dtype(), idx.shape());
  const ir::Shape& is = idx.shape();
  std::vector<int64_t> c(rank, 0);
  for (int64_t e = 0; e < idx.numel(); ++e) {
    int64_t r = e, src = 0;
    for (size_t d = rank; d-- > 0;) {
      c[d] = r % is[d];
      r /= is[d];
    }
    for (size_t d = 0; d < rank; ++d) {
      if (d != axis && c[d] >= data.shape()[d]) ctx.fail("indices are larger than data outside the axis");
      src += (d == axis ? wrapIndex(ctx, idx.getInt64(e), data.shape()[d], "GatherElements") : c[d]) * ds[d];
    }
    copyElements(data, src, out, e, 1);
  }
  return {std::move(out)};
}

ir::TensorType inferScatterND(const OpContext& ctx) {
  ctx.expectInputs(3, 3);
  ctx.expectDType(1, {ir::DType::Int64});
  const std::string reduction = ctx.attrs().getString("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
    ctx.fail("reduction '" + reduction + "' is not one of none, add, mul, max, min");
  if (ctx.dtype(2) != ctx.dtype(0)) ctx.fail("updates and data have different types");
  return ctx.type(0);
}

std::vector<ir::Tensor> computeScatterND(const OpContext& ctx) {
  inferScatterND(ctx);
  const ir::Tensor& data = ctx.tensor(0);
  const ir::Tensor& idx = ctx.tensor(1);
  const ir::Tensor& upd = ctx.tensor(2);
  const ir::Shape& s = data.shape();
  const ir::Shape& is = idx.shape();
  if (is.empty()) ctx.fail("indices must have rank >= 1");
  const auto k = static_cast<size_t>(is.back());
  if (k < 1 || k > s.size()) ctx.fail("indices' last dim " + std::to_string(k) + " is not in [1, data rank]");
  // updates: indices.shape[:-1] + data.shape[k:].
  ir::Shape want(is.begin(), is.end() - 1);
  want.insert(want.end(), s.begin() + static_cast<std::ptrdiff_t>(k), s.end());
  if (upd.shape() != want)
    ctx.fail("updates have shape " + ir::shapeToString(upd.shape()) + ", expected " + ir::shapeToString(want));
  const std::string reduction = ctx.attrs().getString("reduction", "none");
  const std::vector<int64_t> ds = stridesOf(s);
  const int64_t slice = dimProduct(s, k, s.size());
  const int64_t tuples = is.size() > 1 ? dimProduct(is, 0, is.size() - 1) : 1;
  ir::Tensor out = makeTensor(ctx, data.dtype(), s);
  copyElements(data, 0, out, 0, data.numel());
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (size_t j = 0; j < k; ++j)
      base += wrapIndex(ctx, idx.getInt64(t * static_cast<int64_t>(k) + static_cast<int64_t>(j)), s[j], "ScatterND") * ds[j];
    for (int64_t e = 0; e < slice; ++e) {
      if (reduction == "none") {
        copyElements(upd, t * slice + e, out, base + e, 1);
        continue;
      }
      const double a = out.getDouble(base + e), b = upd.getDouble(t * slice + e);
      out.setDouble(base + e, reduction == "add"   ? a + b
                              : reduction == "mul" ? a * b
                              : reduction == "max" ? std::max(a, b)
                                                   : std::min(a, b));
    }
  }
  return {std::move(out)};
}

}  // namespace

void registerIndexOps(OpRegistry& r) {
  const auto move = OpCategory::DataMovement;
  r.add(defineOp("GatherElements", move, inferGatherElements, computeGatherElements));
  r.add(defineOp("ScatterND", move, inferScatterND, computeScatterND));
}

}  // namespace rammer::ops::tensor
