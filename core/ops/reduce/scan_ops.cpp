// CumSum (opsets 11-14): running sums along one axis, inclusive or
// exclusive, forward or reversed. Exports use it for position ids.
#include "core/ops/op_registry.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops {

namespace {

std::vector<ir::TensorType> inferCumSum(const OpContext& ctx) {
  ctx.expectInputs(2, 2);
  ctx.expectDType(1, {ir::DType::Int32, ir::DType::Int64});
  const ir::TensorType& x = ctx.type(0);
  if (x.dtype == ir::DType::String || x.dtype == ir::DType::Bool) ctx.fail("CumSum needs a numeric input");
  if (ctx.type(1).rankKnown && ir::numElements(ctx.shape(1)) != 1) ctx.fail("axis must be a scalar");
  return {x};
}

std::vector<ir::Tensor> computeCumSum(const OpContext& ctx) {
  inferCumSum(ctx);
  const ir::Tensor& x = ctx.tensor(0);
  if (x.rank() == 0) ctx.fail("input must have rank >= 1");
  const auto axis = static_cast<size_t>(normalizeAxis(ctx.tensor(1).getInt64(0), x.rank()));
  const bool exclusive = ctx.attrs().getInt("exclusive", 0) != 0;
  const bool reverse = ctx.attrs().getInt("reverse", 0) != 0;
  const ir::Shape& s = x.shape();
  const int64_t n = s[axis], inner = tensor::dimProduct(s, axis + 1, s.size()), outer = tensor::dimProduct(s, 0, axis);
  ir::Tensor out = tensor::makeTensor(ctx, x.dtype(), s);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double sum = 0;
      for (int64_t t = 0; t < n; ++t) {
        const int64_t k = reverse ? n - 1 - t : t;
        const int64_t at = (o * n + k) * inner + i;
        if (exclusive) {
          out.setDouble(at, sum);
          sum += x.getDouble(at);
        } else {
          sum += x.getDouble(at);
          out.setDouble(at, sum);
        }
      }
    }
  return {std::move(out)};
}

}  // namespace

void registerScanOps(OpRegistry& r) {
  OpDef def;
  def.type = "CumSum";
  def.category = OpCategory::Reduction;
  def.infer = inferCumSum;
  def.compute = computeCumSum;
  def.flops = [](const OpContext&, std::span<const ir::TensorType> outs) { return outputElements(outs); };
  r.add(std::move(def));
}

}  // namespace rammer::ops
