#pragma once
// Every element-wise ONNX op the element-wise fusion takes (issue #30 item
// 1), in one graph: unary math, activations with their attributes, binary
// ops in several broadcast forms, the variadic ones, Where on a constant
// mask, comparisons of floats into bool masks and logic on them (both as
// outputs and read by Not, And, Where, Cast in the same expression). The
// host-target, NVRTC and HIP tests run it.
#include <gtest/gtest.h>

#include "tests/support/graph_builder.h"

namespace rammer::testing {

inline ir::Tensor scalar(float v) { return ir::Tensor::fromVector<float>({1}, {v}); }

// x, y in [-1, 1] (seeded random inputs); p = |x| + 1.25 >= 1.25 for the
// ops defined above 1 (log, sqrt, acosh, ...); q = 0.9 tanh(x) in (-1, 1)
// for asin, acos, atanh.
inline ir::Graph everyElementwiseOp() {
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {4, 37}), y = b.input("y", {37}), z = b.input("z", {4, 1});
  const ir::ValueId p = b.op("Add", "p", {b.op("Abs", "abs_x", {x}), b.constant("c125", scalar(1.25f))});
  const ir::ValueId q = b.op("Mul", "q", {b.op("Tanh", "tanh_x", {x}), b.constant("c09", scalar(0.9f))});
  auto out = [&b](const std::string& op, std::vector<ir::ValueId> in, ir::Attributes a = {}) {
    b.output(b.op(op, "y_" + op + std::to_string(b.graph().numNodeSlots()), std::move(in), std::move(a)));
  };
  for (const char* op :
       {"Neg",  "Abs",      "Exp",      "Floor",     "Ceil", "Erf",  "Sin",  "Cos",  "Sign",  "Relu", "Sigmoid",
        "Tanh", "Softplus", "Softsign", "HardSwish", "Tan",  "Atan", "Sinh", "Cosh", "Asinh", "Round"})
    out(op, {x});
  for (const char* op : {"Sqrt", "Log", "Reciprocal", "Acosh"}) out(op, {p});
  for (const char* op : {"Asin", "Acos", "Atanh"}) out(op, {q});
  out("LeakyRelu", {x}, attrs({{"alpha", 0.3f}}));
  out("Elu", {x}, attrs({{"alpha", 0.8f}}));
  out("Celu", {x}, attrs({{"alpha", 0.7f}}));
  out("Selu", {x});
  out("HardSigmoid", {x}, attrs({{"alpha", 0.4f}, {"beta", 0.3f}}));
  out("ThresholdedRelu", {x}, attrs({{"alpha", 0.2f}}));
  out("Shrink", {x}, attrs({{"lambd", 0.3f}, {"bias", 0.1f}}));
  out("Clip", {x, b.constant("lo", scalar(-0.5f)), b.constant("hi", scalar(0.6f))});
  // Binary ops: the same shape, a trailing vector, a column, a scalar.
  for (const char* op : {"Add", "Sub", "Mul", "Max", "Min"}) {
    out(op, {x, x});
    out(op, {x, y});
    out(op, {z, x});
  }
  out("Mod", {x, b.constant("c03", scalar(0.3f))}, attrs({{"fmod", int64_t{1}}}));
  out("Mod", {y, p}, attrs({{"fmod", int64_t{1}}}));
  out("Div", {x, p});
  out("Div", {y, p});
  out("Pow", {p, x});
  out("Pow", {p, b.constant("two", scalar(2.0f))});
  out("PRelu", {x, y});
  out("PRelu", {x, b.constant("slope", scalar(0.25f))});
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) out(op, {x, y, z});
  // Where with a constant condition (a causal mask folded at import).
  ir::Tensor causal(ir::DType::Bool, {4, 37});
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 37; ++c) causal.data<bool>()[r * 37 + c] = c <= r * 9;
  out("Where", {b.constant("causal", std::move(causal)), x, b.constant("masked", scalar(-1e9f))});
  // Comparisons of floats and logic on their masks: bool outputs, words.
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) out(op, {x, y});
  out("Equal", {x, x});
  const ir::ValueId gt = b.op("Greater", "gt", {x, y}), lt = b.op("Less", "lt", {z, x});
  out("Not", {gt});
  for (const char* op : {"And", "Or", "Xor"}) out(op, {b.op("Greater", std::string("g_") + op, {x, y}), lt});
  out("Where", {b.op("Greater", "pos", {x, b.constant("c0", scalar(0.0f))}), x, y});
  out("Cast", {b.op("LessOrEqual", "le", {y, z})}, attrs({{"to", static_cast<int64_t>(ir::DType::Float32)}}));
  b.output(gt);
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

}  // namespace rammer::testing
