// FusedElementwise (domain com.rammer): what the element-wise fusion pass
// turns chains and trees of element-wise ops into. Attribute "expr" holds the
// per-element expression over inputs x0..xN-1 (numpy broadcasting); optional
// "fused_nodes" names the original nodes for display.
#include "core/ops/broadcast.h"
#include "core/ops/math/fused_expr.h"
#include "core/ops/op_registry.h"

namespace rammer::ops {

namespace {

FusedExpr exprOf(const OpContext& ctx) {
  const std::string text = ctx.attrs().getString("expr", "");
  if (text.empty()) ctx.fail("FusedElementwise needs an 'expr' attribute");
  FusedExpr e = FusedExpr::parse(text);
  if (e.numInputs() > static_cast<int>(ctx.numInputs()))
    ctx.fail("expression reads x" + std::to_string(e.numInputs() - 1) + " but the node has " +
             std::to_string(ctx.numInputs()) + " inputs");
  return e;
}

std::vector<ir::TensorType> inferFused(const OpContext& ctx) {
  exprOf(ctx);
  std::vector<ir::TensorType> types;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    ctx.expectDType(i, {ir::DType::Float32});
    types.push_back(ctx.type(i));
  }
  return {broadcastTypes(types, ir::DType::Float32)};
}

std::vector<ir::Tensor> computeFused(const OpContext& ctx) {
  const FusedExpr e = exprOf(ctx);
  std::vector<ir::Shape> shapes;
  std::vector<const float*> data;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    shapes.push_back(ctx.shape(i));
    data.push_back(ctx.tensor(i).data<float>());
  }
  BroadcastPlan plan(shapes);
  ir::Tensor out(ir::DType::Float32, plan.outShape());
  float* o = out.data<float>();
  std::vector<int64_t> strides(data.size());
  for (size_t k = 0; k < data.size(); ++k) strides[k] = plan.innerStride(k);
  std::vector<const float*> at(data.size());
  plan.forEachRun([&](int64_t outOffset, const int64_t* inOffsets, int64_t n) {
    for (size_t k = 0; k < data.size(); ++k) at[k] = data[k] + inOffsets[k];
    e.evalRow(at.data(), strides.data(), o + outOffset, n);
  });
  return {std::move(out)};
}

}  // namespace

void registerFusedOps(OpRegistry& r) {
  OpDef def;
  def.type = "FusedElementwise";
  def.domain = kRammerDomain;
  def.category = OpCategory::Elementwise;
  def.infer = inferFused;
  def.compute = computeFused;
  def.flops = [](const OpContext& ctx, std::span<const ir::TensorType> outs) {
    const int64_t n = outs.empty() ? 0 : ir::numElements(outs[0].shape);
    return n < 0 ? 0.0 : static_cast<double>(n) * exprOf(ctx).numOperations();
  };
  r.add(std::move(def));
}

}  // namespace rammer::ops
