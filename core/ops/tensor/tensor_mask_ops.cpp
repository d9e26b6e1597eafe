// Trilu (opset 14): keeps the upper (upper=1) or lower triangle of the last
// two dims, relative to diagonal k (input 1, default 0), and zeroes the rest.
// A GPT-style export builds its causal mask with it.
#include "core/ops/tensor/tensor_families.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops::tensor {

namespace {

ir::TensorType inferTrilu(const OpContext& ctx) {
  ctx.expectInputs(1, 2);
  const ir::TensorType& x = ctx.type(0);
  if (x.rankKnown && x.shape.size() < 2) ctx.fail("input must have rank >= 2, got " + std::to_string(x.shape.size()));
  if (ctx.has(1)) {
    ctx.expectDType(1, {ir::DType::Int64});
    if (ctx.type(1).rankKnown && !ctx.shape(1).empty() && ir::numElements(ctx.shape(1)) != 1)
      ctx.fail("k must be a scalar");
  }
  return x;
}

std::vector<ir::Tensor> computeTrilu(const OpContext& ctx) {
  inferTrilu(ctx);
  const ir::Tensor& x = ctx.tensor(0);
  const int64_t k = ctx.has(1) ? ctx.tensor(1).getInt64(0) : 0;
  const bool upper = ctx.attrs().getInt("upper", 1) != 0;
  const ir::Shape& s = x.shape();
  const int64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
  const int64_t planes = rows * cols ? x.numel() / (rows * cols) : 0;
  ir::Tensor out = makeTensor(ctx, x.dtype(), s);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        if (upper ? j - i >= k : j - i <= k) copyElements(x, (p * rows + i) * cols + j, out, (p * rows + i) * cols + j, 1);
  return {std::move(out)};
}

}  // namespace

void registerMaskOps(OpRegistry& r) { r.add(defineOp("Trilu", OpCategory::DataMovement, inferTrilu, computeTrilu)); }

}  // namespace rammer::ops::tensor
