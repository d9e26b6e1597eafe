#pragma once
// The operator library: for each supported ONNX op, type inference, a float32
// (and, where useful, integer) reference implementation, its category and a
// FLOP count. Built once from explicit registration calls, one per op family.
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops/op_context.h"

namespace rammer::ops {

// Coarse op families; drive graph colours, fusion and scheduling decisions.
enum class OpCategory {
  Convolution,
  MatMul,
  Elementwise,
  Activation,
  Normalization,
  Pooling,
  Reduction,
  DataMovement,  // reshape/transpose/concat/slice/gather...: copies only
  Recurrent,
  Constant,
  Other,
};
std::string_view categoryName(OpCategory c);

// One entry per output slot of the node (an omitted slot gets any type).
using InferFn = std::function<std::vector<ir::TensorType>(const OpContext&)>;
// One tensor per output slot of the node.
using ComputeFn = std::function<std::vector<ir::Tensor>(const OpContext&)>;
// Floating-point operations for one execution, given the inferred outputs.
using FlopsFn = std::function<double(const OpContext&, std::span<const ir::TensorType> outputs)>;
// Bytes of working memory one execution of the reference compute takes
// beyond its inputs and outputs (index tables, im2col columns), given the
// inferred outputs; -1 when a shape it needs is unknown.
using ScratchFn = std::function<int64_t(const OpContext&, std::span<const ir::TensorType> outputs)>;

// Domain of the ops this project defines itself (fused and lowered ops).
inline constexpr const char* kRammerDomain = "com.rammer";

// Elements of the first output when its shape is known, else 0: the FLOP
// count of ops that do one operation per output element.
inline double outputElements(std::span<const ir::TensorType> outs) {
  return !outs.empty() && outs[0].fullyKnown() ? static_cast<double>(ir::numElements(outs[0].shape)) : 0.0;
}

struct OpDef {
  std::string type;
  std::string domain;  // "" for ONNX's default domain, kRammerDomain for ours
  OpCategory category = OpCategory::Other;
  InferFn infer;
  ComputeFn compute;
  FlopsFn flops;  // optional: defaults to 0
  ScratchFn scratch;  // optional: defaults to 0 (a few rows at most)
  // Compute needs only input types, not values (Shape, Size): lets type
  // inference learn the output value without knowing the input data.
  bool computeFromTypesOnly = false;
};

class OpRegistry {
 public:
  // Every op this project implements.
  static const OpRegistry& builtin();

  void add(OpDef def);
  // nullptr when the op is not supported ("" and "ai.onnx" are one domain).
  const OpDef* find(std::string_view domain, std::string_view type) const;
  std::vector<std::string> types() const;

 private:
  std::map<std::string, OpDef, std::less<>> ops_;  // key: "domain::type"
};

// Registration entry points, one per op family (each in its own .cpp).
void registerElementwiseOps(OpRegistry& r);   // binary/variadic math, comparisons
void registerUnaryOps(OpRegistry& r);         // unary math and activations
void registerTensorOps(OpRegistry& r);        // shape and data-movement ops
void registerReduceOps(OpRegistry& r);        // reductions, softmax family
void registerScanOps(OpRegistry& r);          // CumSum
void registerConvOps(OpRegistry& r);          // Conv, ConvTranspose
void registerMatMulOps(OpRegistry& r);        // Gemm, MatMul
void registerEinsumOps(OpRegistry& r);        // Einsum
void registerPoolOps(OpRegistry& r);          // pooling
void registerNormOps(OpRegistry& r);          // BatchNorm, InstanceNorm, LRN
void registerRecurrentOps(OpRegistry& r);     // LSTM, GRU, RNN
void registerFusedOps(OpRegistry& r);         // com.rammer: FusedElementwise
void registerCellOps(OpRegistry& r);          // com.rammer: lowered RNN cell gates
void registerFusedGroupOps(OpRegistry& r);    // com.rammer: GraphTurbo's fused groups
void registerAttentionOps(OpRegistry& r);     // com.rammer: fused attention

}  // namespace rammer::ops
