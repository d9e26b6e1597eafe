// FusedElementwise (domain com.rammer): what the element-wise fusion pass
// turns chains and trees of element-wise ops into. Attribute "expr" holds the
// per-element expression over inputs x0..xN-1 (numpy broadcasting); optional
// "fused_nodes" names the original nodes for display. And the GEMMs with an
// element-wise epilogue (core/ops/math/fused_epilogue.h).
#include <algorithm>
#include <array>

#include "core/ir/words.h"
#include "core/ops/broadcast.h"
#include "core/ops/math/fused_epilogue.h"
#include "core/ops/math/fused_expr.h"
#include "core/ops/op_registry.h"
#include "core/ops/op_compute.h"

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

// float32, or bool where the expression ends in bool_to_word (attribute
// "to", an ONNX type number, as Cast's).
ir::DType outputType(const OpContext& ctx) {
  const auto t = ir::dtypeFromOnnx(static_cast<int32_t>(ctx.attrs().getInt("to", 1)));
  if (t != ir::DType::Float32 && t != ir::DType::Bool) ctx.fail("FusedElementwise writes float32 or bool");
  return *t;
}

std::vector<ir::TensorType> inferFused(const OpContext& ctx) {
  exprOf(ctx);
  std::vector<ir::TensorType> types;
  // float32, or integers and bools that where_word / int_to_float read as
  // their int32 words (ir/words.h).
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    ctx.expectDType(i, {ir::DType::Float32, ir::DType::Bool, ir::DType::Int64, ir::DType::Int32, ir::DType::Int16,
                        ir::DType::UInt16, ir::DType::Int8, ir::DType::UInt8});
    types.push_back(ctx.type(i));
  }
  return {broadcastTypes(types, outputType(ctx))};
}

// out = e(inputs...) with numpy broadcasting.
ir::Tensor evaluate(const FusedExpr& e, const std::vector<const ir::Tensor*>& inputs) {
  std::vector<ir::Shape> shapes;
  std::vector<const float*> data;
  for (const ir::Tensor* t : inputs) {
    shapes.push_back(t->shape());
    data.push_back(t->data<float>());
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
  return out;
}

std::vector<ir::Tensor> computeFused(const OpContext& ctx) {
  const FusedExpr e = exprOf(ctx);
  std::vector<const ir::Tensor*> inputs;
  std::vector<ir::Tensor> words(ctx.numInputs());  // integer inputs as the words the rKernels read
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    const ir::Tensor& t = ctx.tensor(i);
    if (t.dtype() != ir::DType::Float32) {
      auto w = ir::toWords(t, t.numel(), "input " + std::to_string(i));
      if (!w) ctx.fail(w.errorText());
      words[i] = ir::Tensor(ir::DType::Float32, t.shape());
      std::copy(w->begin(), w->end(), words[i].data<float>());
    }
    inputs.push_back(t.dtype() != ir::DType::Float32 ? &words[i] : &t);
  }
  ir::Tensor out = evaluate(e, inputs);
  if (outputType(ctx) == ir::DType::Float32) return {std::move(out)};
  return {ir::fromWords(ir::DType::Bool, out.shape(), out.values<float>())};
}

// ---- FusedConv, FusedGemm, FusedMatMul ----

constexpr std::array<EpilogueOp, 3> kEpilogueOps{{{"FusedConv", "Conv", 3}, {"FusedGemm", "Gemm", 3},
                                                  {"FusedMatMul", "MatMul", 2}}};

// The node as its base op sees it: the base type, its own input slots.
struct BaseView {
  const OpDef* def = nullptr;
  ir::Node node;
  size_t arity = 0;
  FusedExpr epilogue;
};

BaseView baseOf(const OpContext& ctx) {
  const EpilogueOp* op = epilogueOpOf(ctx.node().opType);
  if (!op) ctx.fail("not an op with an epilogue: " + ctx.node().opType);
  BaseView v;
  v.def = OpRegistry::builtin().find("", op->base);
  if (!v.def) ctx.fail("no " + std::string(op->base) + " op to fuse an epilogue into");
  v.arity = op->arity;
  if (ctx.numInputs() < v.arity)
    ctx.fail(std::string(op->fused) + " needs its " + std::to_string(v.arity) + " " + std::string(op->base) +
             " input slots before the epilogue's inputs");
  v.node = ctx.node();
  v.node.opType = std::string(op->base);
  v.node.domain.clear();
  v.node.inputs.resize(v.arity);
  v.epilogue = parseEpilogue(ctx.node(), ctx.numInputs() - v.arity);
  return v;
}

template <class T>
std::vector<T> head(const std::vector<T>& all, size_t n) {
  return {all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n)};
}

std::vector<ir::TensorType> inputTypes(const OpContext& ctx) {
  std::vector<ir::TensorType> t;
  for (size_t i = 0; i < ctx.numInputs(); ++i) t.push_back(ctx.has(i) ? ctx.type(i) : ir::TensorType{});
  return t;
}

std::vector<const ir::Tensor*> inputValues(const OpContext& ctx) {
  std::vector<const ir::Tensor*> v;
  for (size_t i = 0; i < ctx.numInputs(); ++i) v.push_back(ctx.value(i));
  return v;
}

std::vector<ir::TensorType> inferWithEpilogue(const OpContext& ctx) {
  const BaseView b = baseOf(ctx);
  const OpContext base(b.node, ctx.opset(), head(inputTypes(ctx), b.arity), head(inputValues(ctx), b.arity));
  std::vector<ir::TensorType> out = b.def->infer(base);
  if (out.size() != 1) ctx.fail("the base op of an epilogue must have one output");
  for (size_t i = b.arity; i < ctx.numInputs(); ++i) {
    ctx.expectDType(i, {ir::DType::Float32});
    const ir::TensorType& t = ctx.type(i);
    // Same shape, or one element: the epilogue reads input i at the output's index (or its only element).
    if (t.fullyKnown() && out[0].fullyKnown() && t.shape != out[0].shape && ir::numElements(t.shape) != 1)
      ctx.fail("epilogue input " + std::to_string(i) + " has shape " + ir::shapeToString(t.shape) +
               "; it must have the output's shape " + ir::shapeToString(out[0].shape) + " or one element");
  }
  return out;
}

std::vector<ir::Tensor> computeWithEpilogue(const OpContext& ctx) {
  const BaseView b = baseOf(ctx);
  const OpContext base(b.node, ctx.opset(), head(inputTypes(ctx), b.arity), head(inputValues(ctx), b.arity));
  std::vector<ir::Tensor> product = ops::computeOp(*b.def, base);
  std::vector<const ir::Tensor*> inputs{&product.at(0)};
  for (size_t i = b.arity; i < ctx.numInputs(); ++i) inputs.push_back(&ctx.tensor(i));
  ir::Tensor out = evaluate(b.epilogue, inputs);
  if (out.shape() != product[0].shape()) ctx.fail("the epilogue's inputs broadcast the output to another shape");
  return {std::move(out)};
}

}  // namespace

const EpilogueOp* epilogueOpOf(std::string_view fusedType) {
  for (const EpilogueOp& op : kEpilogueOps)
    if (op.fused == fusedType) return &op;
  return nullptr;
}

const EpilogueOp* epilogueOpFor(std::string_view baseType) {
  for (const EpilogueOp& op : kEpilogueOps)
    if (op.base == baseType) return &op;
  return nullptr;
}

FusedExpr parseEpilogue(const ir::Node& node, size_t epilogueInputs) {
  const std::string text = node.attrs.getString(std::string(kEpilogueAttr), "");
  if (text.empty()) throw OpError(node.opType + " needs an 'epilogue' attribute");
  FusedExpr e = FusedExpr::parse(text);
  if (e.numInputs() > static_cast<int>(epilogueInputs) + 1)
    throw OpError("the epilogue reads x" + std::to_string(e.numInputs() - 1) + " but the node has " +
                  std::to_string(epilogueInputs) + " epilogue inputs");
  return e;
}

namespace {
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

  for (const EpilogueOp& op : kEpilogueOps) {
    const OpDef* base = r.find("", op.base);
    OpDef fused;
    fused.type = std::string(op.fused);
    fused.domain = kRammerDomain;
    fused.category = base ? base->category : OpCategory::Other;
    fused.infer = inferWithEpilogue;
    fused.compute = computeWithEpilogue;
    fused.flops = [](const OpContext& ctx, std::span<const ir::TensorType> outs) {
      const BaseView b = baseOf(ctx);
      const OpContext view(b.node, ctx.opset(), head(inputTypes(ctx), b.arity), head(inputValues(ctx), b.arity));
      const double own = b.def->flops ? b.def->flops(view, outs) : 0.0;
      const int64_t n = outs.empty() ? 0 : ir::numElements(outs[0].shape);
      return own + (n < 0 ? 0.0 : static_cast<double>(n) * b.epilogue.numOperations());
    };
    r.add(std::move(fused));
  }
}

}  // namespace rammer::ops
