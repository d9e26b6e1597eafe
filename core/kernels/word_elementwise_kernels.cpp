#include "core/kernels/word_elementwise_kernels.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "core/ir/words.h"
#include "core/kernels/broadcast_reads.h"

namespace rammer::kernels {

namespace {

using ir::DType;

bool isInt(DType t) { return ir::wordKindOf(t) == ir::WordKind::Int; }

// What one node computes: the CUDA expression over w0, w1, ... (the input
// words). The emulator takes its values from the reference operator
// (RKernel::written).
struct WordOp {
  std::string cudaResult;
};

std::string cudaWrap(const std::string& x, DType t) {
  switch (t) {
    case DType::Int8:
      return "(int)(signed char)(" + x + ")";
    case DType::UInt8:
      return "(int)(unsigned char)(" + x + ")";
    case DType::Int16:
      return "(int)(short)(" + x + ")";
    case DType::UInt16:
      return "(int)(unsigned short)(" + x + ")";
    case DType::Bool:
      return "(int)((" + x + ") != 0)";
    default:
      return "(int)(" + x + ")";
  }
}

// The range float values saturate at when cast to t (int64: its int32 words).
void intRange(DType t, int64_t& lo, int64_t& hi) {
  switch (t) {
    case DType::Int8:
      lo = -128, hi = 127;
      return;
    case DType::UInt8:
      lo = 0, hi = 255;
      return;
    case DType::Int16:
      lo = -32768, hi = 32767;
      return;
    case DType::UInt16:
      lo = 0, hi = 65535;
      return;
    default:
      lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
      return;
  }
}

std::string cudaFloatToInt(const std::string& x, DType t) {
  int64_t lo = 0, hi = 0;
  intRange(t, lo, hi);
  const std::string h = std::to_string(hi), l = std::to_string(lo);
  std::string s = "(" + x + " != " + x + ") ? 0 : (" + x + " >= " + h + ".0f) ? " + h + " : ";
  if (lo < 0)
    s += "(" + x + " <= " + l + ".0f) ? (" + l + ") : (int)" + x;
  else
    s += "(" + x + " < -9.2e18f) ? 0 : " + cudaWrap("(long long)" + x, t);
  return "(" + s + ")";
}

// Reads of input k as its value: the float, or the word's int32.
std::string cudaValue(size_t k, DType t) {
  const std::string w = "w" + std::to_string(k);
  return isInt(t) ? "__float_as_int(" + w + ")" : w;
}

std::string cudaBoolWord(const std::string& cond) { return "__int_as_float((int)(" + cond + "))"; }

WordOp comparison(const std::string& op, DType a, DType b) {
  static const std::map<std::string, std::string> kOps = {
      {"Equal", "=="}, {"Less", "<"}, {"LessOrEqual", "<="}, {"Greater", ">"}, {"GreaterOrEqual", ">="}};
  const std::string& text = kOps.at(op);
  WordOp w;
  w.cudaResult = cudaBoolWord(cudaValue(0, a) + " " + text + " " + cudaValue(1, b));
  return w;
}

WordOp logical(const std::string& op) {
  WordOp w;
  const std::string a = "(__float_as_int(w0) != 0)", b = "(__float_as_int(w1) != 0)";
  if (op == "Not") {
    w.cudaResult = cudaBoolWord("!" + a);
    return w;
  }
  w.cudaResult = cudaBoolWord(a + (op == "And" ? " && " : op == "Or" ? " || " : " != ") + b);
  return w;
}

WordOp cast(DType from, DType to) {
  WordOp w;
  if (to == DType::Float32) {
    w.cudaResult = isInt(from) ? "(float)__float_as_int(w0)" : "w0";
  } else if (isInt(from)) {
    w.cudaResult = "__int_as_float(" + cudaWrap("__float_as_int(w0)", to) + ")";
  } else if (to == DType::Bool) {  // NaN is not 0: true, as in the reference
    w.cudaResult = cudaBoolWord("w0 != 0.0f");
  } else {
    w.cudaResult = "__int_as_float(" + cudaFloatToInt("w0", to) + ")";
  }
  return w;
}

// Integer arithmetic on 64-bit values (elementwise.cuh's word functions),
// wrapped to the output type.
WordOp arithmetic(const std::string& op, size_t arity, DType out, bool cStyleMod) {
  static const std::map<std::string, std::string> kBinary = {
      {"Add", "RammerWordAdd"}, {"Sum", "RammerWordAdd"}, {"Sub", "RammerWordSub"}, {"Mul", "RammerWordMul"},
      {"Max", "RammerWordMax"}, {"Min", "RammerWordMin"}, {"Div", "RammerWordDiv"}, {"ModC", "RammerWordModC"},
      {"Mod", "RammerWordMod"}};
  WordOp w;
  if (op == "Neg" || op == "Abs") {
    const std::string map = op == "Neg" ? "RammerWordNeg" : "RammerWordAbs";
    w.cudaResult = "__int_as_float(" + cudaWrap("rammer_word_map<" + map + ">(w0)", out) + ")";
    return w;
  }
  std::string args = "w0";
  for (size_t k = 1; k < arity; ++k) args += ", w" + std::to_string(k);
  const std::string& fold = kBinary.at(op == "Mod" && cStyleMod ? "ModC" : op);
  w.cudaResult = "__int_as_float(" + cudaWrap("rammer_word_fold<" + fold + ">(" + args + ")", out) + ")";
  return w;
}

WordOp opOf(const NodeInfo& info) {
  const std::string& op = info.node->opType;
  const std::vector<DType>& in = info.inTypes;
  const DType out = info.outTypes.at(0);
  const size_t n = info.numInputs();
  auto need = [&](size_t lo, size_t hi) {
    if (n < lo || n > hi)
      throw ops::OpError(op + " takes " + std::to_string(lo) + " to " + std::to_string(hi) + " inputs");
    for (size_t k = 0; k < n; ++k)
      if (!info.inPresent[k]) throw ops::OpError(op + " input " + std::to_string(k) + " is omitted");
  };
  if (op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual") {
    need(2, 2);
    return comparison(op, in[0], in[1]);
  }
  if (op == "And" || op == "Or" || op == "Xor" || op == "Not") {
    need(op == "Not" ? 1 : 2, op == "Not" ? 1 : 2);
    return logical(op);
  }
  if (op == "Where") {
    need(3, 3);
    if (in[0] != DType::Bool)
      throw ops::OpError("Where's condition is " + std::string(ir::dtypeName(in[0])) + ", not bool");
    WordOp w;
    w.cudaResult = "(__float_as_int(w0) != 0 ? w1 : w2)";
    return w;
  }
  if (op == "Cast") {
    need(1, 1);
    return cast(in[0], out);
  }
  if (!isInt(out))
    throw ops::OpError(op + " on " + std::string(ir::dtypeName(out)) +
                       " is computed by FusedElementwise (the element-wise "
                       "fusion pass), not here");
  if (op == "Neg" || op == "Abs") {
    need(1, 1);
    return arithmetic(op, 1, out, false);
  }
  if (op == "Sum" || op == "Max" || op == "Min") {
    need(1, 64);
    return arithmetic(op, n, out, false);
  }
  need(2, 2);
  return arithmetic(op, 2, out, info.node->attrs.getInt("fmod", 0) != 0);
}

}  // namespace

const std::vector<std::string>& wordElementwiseOpTypes() {
  static const std::vector<std::string> types = {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual",
                                                 "And",   "Or",   "Xor",         "Not",     "Where",
                                                 "Cast",  "Add",  "Sub",         "Mul",     "Div",
                                                 "Mod",   "Max",  "Min",         "Sum",     "Neg",
                                                 "Abs"};
  return types;
}

std::vector<RKernel> wordElementwiseKernels(const NodeInfo& info) {
  if (info.numOutputs() != 1 || !info.outPresent[0]) throw ops::OpError("an element-wise op has one output");
  for (size_t k = 0; k < info.numInputs(); ++k)
    if (info.inPresent[k] && !ir::heldAsWords(info.inTypes[k]))
      throw ops::OpError("input " + std::to_string(k) + " is " + std::string(ir::dtypeName(info.inTypes[k])) +
                         ", which run-time words do not hold");
  if (!ir::heldAsWords(info.outTypes[0]))
    throw ops::OpError("the output is " + std::string(ir::dtypeName(info.outTypes[0])) +
                       ", which run-time words do not hold");
  const WordOp op = opOf(info);
  const ir::Shape out = info.outShapes[0];
  const size_t n = info.numInputs();
  const BroadcastReads reads(info.inShapes, out);
  const int64_t total = ir::numElements(out);

  ElementKernelSpec spec;
  spec.family = "elementwise";
  spec.total = total;
  spec.flops = static_cast<double>(total) * static_cast<double>(std::max<size_t>(n, 2) - 1);
  double bytes = static_cast<double>(total) * 4;
  for (size_t k = 0; k < n; ++k) bytes += static_cast<double>(ir::numElements(info.inShapes[k])) * 4;
  spec.bytes = bytes;
  spec.constantsAsWords.assign(n, true);  // a constant mask or operand is read like any input
  // elementwise.cuh's body; the operator's statements and result over the
  // words w0, w1, ... are the generated part.
  reads.useElementwiseTemplate(spec, cudaExpressionOp("Op", n, "", op.cudaResult, "w"));
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels
