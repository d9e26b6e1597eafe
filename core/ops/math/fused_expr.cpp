#include "core/ops/math/fused_expr.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <functional>

#include "core/ops/op_context.h"

namespace rammer::ops {

namespace {

using Fn1 = float (*)(float);
using Fn2 = float (*)(float, float);
using Fn3 = float (*)(float, float, float);

struct Function {
  const char* name;
  int arity;
  Fn1 f1;
  Fn2 f2;
  Fn3 f3;
  const char* cuda;  // printf-like with %0 %1 %2 for the arguments
};

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Parametric activations take their parameters as literal arguments so one
// table entry serves every alpha.
const Function kFunctions[] = {
    {"add", 2, nullptr, [](float a, float b) { return a + b; }, nullptr, "(%0 + %1)"},
    {"sub", 2, nullptr, [](float a, float b) { return a - b; }, nullptr, "(%0 - %1)"},
    {"mul", 2, nullptr, [](float a, float b) { return a * b; }, nullptr, "(%0 * %1)"},
    {"div", 2, nullptr, [](float a, float b) { return a / b; }, nullptr, "(%0 / %1)"},
    {"pow", 2, nullptr, [](float a, float b) { return std::pow(a, b); }, nullptr, "powf(%0, %1)"},
    {"max", 2, nullptr, [](float a, float b) { return std::fmax(a, b); }, nullptr, "fmaxf(%0, %1)"},
    {"min", 2, nullptr, [](float a, float b) { return std::fmin(a, b); }, nullptr, "fminf(%0, %1)"},
    {"fmod", 2, nullptr, [](float a, float b) { return std::fmod(a, b); }, nullptr, "fmodf(%0, %1)"},
    {"neg", 1, [](float a) { return -a; }, nullptr, nullptr, "(-%0)"},
    {"abs", 1, [](float a) { return std::fabs(a); }, nullptr, nullptr, "fabsf(%0)"},
    {"sqrt", 1, [](float a) { return std::sqrt(a); }, nullptr, nullptr, "sqrtf(%0)"},
    {"exp", 1, [](float a) { return std::exp(a); }, nullptr, nullptr, "expf(%0)"},
    {"log", 1, [](float a) { return std::log(a); }, nullptr, nullptr, "logf(%0)"},
    {"reciprocal", 1, [](float a) { return 1.0f / a; }, nullptr, nullptr, "(1.0f / %0)"},
    {"floor", 1, [](float a) { return std::floor(a); }, nullptr, nullptr, "floorf(%0)"},
    {"ceil", 1, [](float a) { return std::ceil(a); }, nullptr, nullptr, "ceilf(%0)"},
    {"erf", 1, [](float a) { return std::erf(a); }, nullptr, nullptr, "erff(%0)"},
    {"sin", 1, [](float a) { return std::sin(a); }, nullptr, nullptr, "sinf(%0)"},
    {"cos", 1, [](float a) { return std::cos(a); }, nullptr, nullptr, "cosf(%0)"},
    {"tan", 1, [](float a) { return std::tan(a); }, nullptr, nullptr, "tanf(%0)"},
    {"asin", 1, [](float a) { return std::asin(a); }, nullptr, nullptr, "asinf(%0)"},
    {"acos", 1, [](float a) { return std::acos(a); }, nullptr, nullptr, "acosf(%0)"},
    {"atan", 1, [](float a) { return std::atan(a); }, nullptr, nullptr, "atanf(%0)"},
    {"sinh", 1, [](float a) { return std::sinh(a); }, nullptr, nullptr, "sinhf(%0)"},
    {"cosh", 1, [](float a) { return std::cosh(a); }, nullptr, nullptr, "coshf(%0)"},
    {"asinh", 1, [](float a) { return std::asinh(a); }, nullptr, nullptr, "asinhf(%0)"},
    {"acosh", 1, [](float a) { return std::acosh(a); }, nullptr, nullptr, "acoshf(%0)"},
    {"atanh", 1, [](float a) { return std::atanh(a); }, nullptr, nullptr, "atanhf(%0)"},
    // Halves to the even neighbour (ONNX Round): the default rounding mode.
    {"round", 1, [](float a) { return std::nearbyint(a); }, nullptr, nullptr, "rintf(%0)"},
    {"relu", 1, [](float a) { return a > 0 ? a : 0.0f; }, nullptr, nullptr, "fmaxf(%0, 0.0f)"},
    {"sigmoid", 1, sigmoid, nullptr, nullptr, "(1.0f / (1.0f + expf(-%0)))"},
    {"tanh", 1, [](float a) { return std::tanh(a); }, nullptr, nullptr, "tanhf(%0)"},
    {"softplus", 1, [](float a) { return std::log1p(std::exp(a)); }, nullptr, nullptr, "log1pf(expf(%0))"},
    {"softsign", 1, [](float a) { return a / (1.0f + std::fabs(a)); }, nullptr, nullptr, "(%0 / (1.0f + fabsf(%0)))"},
    {"hard_swish", 1, [](float a) { return a * std::fmax(0.0f, std::fmin(1.0f, a / 6.0f + 0.5f)); }, nullptr,
     nullptr, "(%0 * fmaxf(0.0f, fminf(1.0f, %0 / 6.0f + 0.5f)))"},
    {"sign", 1, [](float a) { return a > 0 ? 1.0f : (a < 0 ? -1.0f : 0.0f); }, nullptr, nullptr,
     "((%0 > 0.0f) ? 1.0f : ((%0 < 0.0f) ? -1.0f : 0.0f))"},
    // leaky_relu(x, alpha), elu(x, alpha), prelu(x, slope): negative side scaled.
    {"leaky_relu", 2, nullptr, [](float x, float a) { return x >= 0 ? x : a * x; }, nullptr,
     "((%0 >= 0.0f) ? %0 : %1 * %0)"},
    {"prelu", 2, nullptr, [](float x, float a) { return x >= 0 ? x : a * x; }, nullptr,
     "((%0 >= 0.0f) ? %0 : %1 * %0)"},
    {"elu", 2, nullptr, [](float x, float a) { return x >= 0 ? x : a * (std::exp(x) - 1.0f); }, nullptr,
     "((%0 >= 0.0f) ? %0 : %1 * (expf(%0) - 1.0f))"},
    // celu(x, alpha), thresholded_relu(x, alpha)
    {"celu", 2, nullptr, [](float x, float a) { return x < 0 ? a * std::expm1(x / a) : x; }, nullptr,
     "((%0 < 0.0f) ? %1 * expm1f(%0 / %1) : %0)"},
    {"thresholded_relu", 2, nullptr, [](float x, float a) { return x > a ? x : 0.0f; }, nullptr,
     "((%0 > %1) ? %0 : 0.0f)"},
    // shrink(x, lambd, bias): the arguments in parentheses, as a literal may be negative.
    {"shrink", 3, nullptr, nullptr,
     [](float x, float l, float b) { return x < -l ? x + b : x > l ? x - b : 0.0f; },
     "((%0 < -(%1)) ? %0 + (%2) : ((%0 > (%1)) ? %0 - (%2) : 0.0f))"},
    // selu(x, alpha, gamma), hard_sigmoid(x, alpha, beta), clip(x, lo, hi)
    {"selu", 3, nullptr, nullptr,
     [](float x, float a, float g) { return x > 0 ? g * x : g * (a * std::exp(x) - a); },
     "((%0 > 0.0f) ? %2 * %0 : %2 * (%1 * expf(%0) - %1))"},
    {"hard_sigmoid", 3, nullptr, nullptr,
     [](float x, float a, float b) { return std::fmax(0.0f, std::fmin(1.0f, a * x + b)); },
     "fmaxf(0.0f, fminf(1.0f, %1 * %0 + %2))"},
    {"clip", 3, nullptr, nullptr, [](float x, float lo, float hi) { return std::fmin(std::fmax(x, lo), hi); },
     "fminf(fmaxf(%0, %1), %2)"},
    // where(c, a, b): a where c is not 0 (Where with a constant condition, as 0/1).
    {"where", 3, nullptr, nullptr, [](float c, float a, float b) { return c != 0.0f ? a : b; },
     "((%0 != 0.0f) ? %1 : %2)"},
    // Reads of an integer or bool input, held as an int32 word (ir/words.h):
    // bits, not a float value, so flushing denormals cannot touch them.
    // where_word(c, a, b): Where on a mask computed at run time;
    // int_to_float(x): Cast of an integer or bool to float32.
    {"where_word", 3, nullptr, nullptr,
     [](float c, float a, float b) { return std::bit_cast<int32_t>(c) != 0 ? a : b; },
     "((__float_as_int(%0) != 0) ? %1 : %2)"},
    {"int_to_float", 1, [](float w) { return static_cast<float>(std::bit_cast<int32_t>(w)); }, nullptr, nullptr,
     "((float)__float_as_int(%0))"},
    // Comparisons and logic on values, 1 for true and 0 for false (float32
    // operands compare exactly; bools arrive through int_to_float).
    {"equal", 2, nullptr, [](float a, float b) { return a == b ? 1.0f : 0.0f; }, nullptr, "((%0 == %1) ? 1.0f : 0.0f)"},
    {"less", 2, nullptr, [](float a, float b) { return a < b ? 1.0f : 0.0f; }, nullptr, "((%0 < %1) ? 1.0f : 0.0f)"},
    {"less_equal", 2, nullptr, [](float a, float b) { return a <= b ? 1.0f : 0.0f; }, nullptr,
     "((%0 <= %1) ? 1.0f : 0.0f)"},
    {"greater", 2, nullptr, [](float a, float b) { return a > b ? 1.0f : 0.0f; }, nullptr, "((%0 > %1) ? 1.0f : 0.0f)"},
    {"greater_equal", 2, nullptr, [](float a, float b) { return a >= b ? 1.0f : 0.0f; }, nullptr,
     "((%0 >= %1) ? 1.0f : 0.0f)"},
    {"logical_not", 1, [](float a) { return a == 0.0f ? 1.0f : 0.0f; }, nullptr, nullptr, "((%0 == 0.0f) ? 1.0f : 0.0f)"},
    {"logical_and", 2, nullptr, [](float a, float b) { return a != 0.0f && b != 0.0f ? 1.0f : 0.0f; }, nullptr,
     "((%0 != 0.0f && %1 != 0.0f) ? 1.0f : 0.0f)"},
    {"logical_or", 2, nullptr, [](float a, float b) { return a != 0.0f || b != 0.0f ? 1.0f : 0.0f; }, nullptr,
     "((%0 != 0.0f || %1 != 0.0f) ? 1.0f : 0.0f)"},
    {"logical_xor", 2, nullptr, [](float a, float b) { return (a != 0.0f) != (b != 0.0f) ? 1.0f : 0.0f; }, nullptr,
     "(((%0 != 0.0f) != (%1 != 0.0f)) ? 1.0f : 0.0f)"},
    // bool_to_word(v): a bool output's word (1 where v is not 0), the root of
    // an expression whose node writes a bool tensor.
    {"bool_to_word", 1, [](float v) { return std::bit_cast<float>(int32_t{v != 0.0f}); }, nullptr, nullptr,
     "__int_as_float((int)(%0 != 0.0f))"},
};
constexpr int kNumFunctions = static_cast<int>(sizeof(kFunctions) / sizeof(kFunctions[0]));

int findFunction(const std::string& name) {
  for (int i = 0; i < kNumFunctions; ++i)
    if (name == kFunctions[i].name) return i;
  return -1;
}

std::string literalText(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  std::string s = buf;
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  FusedExpr parseAll() {
    FusedExpr e = parseExpr();
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected text after the expression");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw OpError("expression \"" + text_ + "\" at " + std::to_string(pos_) + ": " + what);
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string token() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) && text_[pos_] != '(' &&
           text_[pos_] != ')')
      ++pos_;
    if (start == pos_) fail("expected a name or a number");
    return text_.substr(start, pos_ - start);
  }
  FusedExpr parseExpr() {
    skipSpace();
    if (pos_ >= text_.size()) fail("unexpected end");
    if (text_[pos_] == '(') {
      ++pos_;
      std::string fn = token();
      std::vector<FusedExpr> args;
      for (;;) {
        skipSpace();
        if (pos_ >= text_.size()) fail("missing ')'");
        if (text_[pos_] == ')') { ++pos_; break; }
        args.push_back(parseExpr());
      }
      return FusedExpr::call(fn, args);
    }
    std::string t = token();
    if (t.size() > 1 && t[0] == 'x' && std::all_of(t.begin() + 1, t.end(), ::isdigit))
      return FusedExpr::input(std::stoi(t.substr(1)));
    char* end = nullptr;
    float v = std::strtof(t.c_str(), &end);
    if (end != t.c_str() + t.size()) fail("'" + t + "' is neither an input (x0, x1, ...) nor a number");
    return FusedExpr::literal(v);
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

FusedExpr FusedExpr::parse(const std::string& text) { return Parser(text).parseAll(); }

FusedExpr FusedExpr::input(int k) {
  if (k < 0) throw OpError("negative input index in expression");
  FusedExpr e;
  e.nodes_.push_back(Node{Node::Kind::Input, k, 0, -1, {}});
  return e;
}

FusedExpr FusedExpr::literal(float v) {
  FusedExpr e;
  e.nodes_.push_back(Node{Node::Kind::Literal, 0, v, -1, {}});
  return e;
}

int FusedExpr::append(const FusedExpr& other) {
  const int offset = static_cast<int>(nodes_.size());
  for (Node n : other.nodes_) {
    for (int& a : n.args) a += offset;
    nodes_.push_back(std::move(n));
  }
  return static_cast<int>(nodes_.size()) - 1;
}

FusedExpr FusedExpr::call(const std::string& fn, const std::vector<FusedExpr>& args) {
  const int f = findFunction(fn);
  if (f < 0) throw OpError("unknown function '" + fn + "' in expression");
  if (static_cast<int>(args.size()) != kFunctions[f].arity)
    throw OpError("function '" + fn + "' takes " + std::to_string(kFunctions[f].arity) + " arguments, got " +
                  std::to_string(args.size()));
  FusedExpr e;
  Node call{Node::Kind::Call, 0, 0, f, {}};
  for (const FusedExpr& a : args) call.args.push_back(e.append(a));
  e.nodes_.push_back(std::move(call));
  return e;
}

FusedExpr FusedExpr::substitute(const std::vector<FusedExpr>& exprs) const {
  // Rebuild bottom-up: each node becomes the index of its rebuilt root.
  FusedExpr out;
  std::vector<int> at(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.kind == Node::Kind::Input && n.input < static_cast<int>(exprs.size())) {
      at[i] = out.append(exprs[static_cast<size_t>(n.input)]);
    } else {
      Node copy = n;
      for (int& a : copy.args) a = at[static_cast<size_t>(a)];
      out.nodes_.push_back(std::move(copy));
      at[i] = static_cast<int>(out.nodes_.size()) - 1;
    }
  }
  // The root must be last for evaluation: it is, since nodes_ ends with the root.
  return out;
}

FusedExpr FusedExpr::readingValueOf(int k) const {
  static const int toFloat = findFunction("int_to_float"), whereWord = findFunction("where_word"),
                   where = findFunction("where");
  FusedExpr out = *this;
  for (Node& n : out.nodes_) {
    if (n.kind != Node::Kind::Call || n.args.empty()) continue;
    const Node& a = out.nodes_[static_cast<size_t>(n.args[0])];
    if (a.kind != Node::Kind::Input || a.input != k) continue;
    if (n.fn == toFloat) n = a;  // the value itself
    else if (n.fn == whereWord) n.fn = where;
  }
  return out;
}

FusedExpr FusedExpr::remapInputs(const std::vector<int>& map) const {
  FusedExpr out = *this;
  for (Node& n : out.nodes_)
    if (n.kind == Node::Kind::Input) n.input = map.at(static_cast<size_t>(n.input));
  return out;
}

std::string FusedExpr::toString() const {
  std::vector<std::string> text(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.kind == Node::Kind::Input) text[i] = "x" + std::to_string(n.input);
    else if (n.kind == Node::Kind::Literal) text[i] = literalText(n.literal);
    else {
      text[i] = std::string("(") + kFunctions[n.fn].name;
      for (int a : n.args) text[i] += " " + text[static_cast<size_t>(a)];
      text[i] += ")";
    }
  }
  return text.empty() ? std::string() : text.back();
}

int FusedExpr::numInputs() const {
  int n = 0;
  for (const Node& node : nodes_)
    if (node.kind == Node::Kind::Input) n = std::max(n, node.input + 1);
  return n;
}

int FusedExpr::numOperations() const {
  return static_cast<int>(std::count_if(nodes_.begin(), nodes_.end(),
                                        [](const Node& n) { return n.kind == Node::Kind::Call; }));
}

float FusedExpr::evalScalar(const float* xs) const {
  std::vector<float> v(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    switch (n.kind) {
      case Node::Kind::Input: v[i] = xs[n.input]; break;
      case Node::Kind::Literal: v[i] = n.literal; break;
      case Node::Kind::Call: {
        const Function& f = kFunctions[n.fn];
        auto arg = [&](int k) { return v[static_cast<size_t>(n.args[static_cast<size_t>(k)])]; };
        v[i] = f.arity == 1 ? f.f1(arg(0)) : f.arity == 2 ? f.f2(arg(0), arg(1)) : f.f3(arg(0), arg(1), arg(2));
      }
    }
  }
  return v.back();
}

void FusedExpr::evalRow(const float* const* in, const int64_t* stride, float* out, int64_t n) const {
  // Evaluate node by node over a chunk, so the per-element cost is one
  // function-pointer call per operation rather than a tree walk.
  constexpr int64_t kChunk = 256;
  std::vector<float> regs(nodes_.size() * kChunk);
  for (int64_t base = 0; base < n; base += kChunk) {
    const int64_t len = std::min(kChunk, n - base);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& nd = nodes_[i];
      float* r = &regs[i * kChunk];
      if (nd.kind == Node::Kind::Input) {
        const float* p = in[nd.input];
        const int64_t s = stride[nd.input];
        if (s == 0) std::fill(r, r + len, p[0]);
        else for (int64_t j = 0; j < len; ++j) r[j] = p[(base + j) * s];
      } else if (nd.kind == Node::Kind::Literal) {
        std::fill(r, r + len, nd.literal);
      } else {
        const Function& f = kFunctions[nd.fn];
        const float* a = &regs[static_cast<size_t>(nd.args[0]) * kChunk];
        if (f.arity == 1) {
          for (int64_t j = 0; j < len; ++j) r[j] = f.f1(a[j]);
        } else if (f.arity == 2) {
          const float* b = &regs[static_cast<size_t>(nd.args[1]) * kChunk];
          for (int64_t j = 0; j < len; ++j) r[j] = f.f2(a[j], b[j]);
        } else {
          const float* b = &regs[static_cast<size_t>(nd.args[1]) * kChunk];
          const float* c = &regs[static_cast<size_t>(nd.args[2]) * kChunk];
          for (int64_t j = 0; j < len; ++j) r[j] = f.f3(a[j], b[j], c[j]);
        }
      }
    }
    std::memcpy(out + base, &regs[(nodes_.size() - 1) * kChunk], static_cast<size_t>(len) * sizeof(float));
  }
}

std::string FusedExpr::toCuda(const std::vector<std::string>& inputs, const std::string& result,
                              const std::string& indent) const {
  // One temporary per node: arguments used twice (softsign, selu) are
  // computed once and nesting never duplicates text.
  std::string code;
  auto temp = [](size_t i) { return "e" + std::to_string(i); };
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    std::string value;
    if (n.kind == Node::Kind::Input) {
      if (n.input >= static_cast<int>(inputs.size())) throw OpError("expression reads an input with no CUDA text");
      value = inputs[static_cast<size_t>(n.input)];
    } else if (n.kind == Node::Kind::Literal) {
      std::string lit = literalText(n.literal);
      value = lit == "inf" ? "INFINITY" : lit == "-inf" ? "(-INFINITY)" : lit == "nan" ? "NAN" : lit + "f";
    } else {
      for (const char* p = kFunctions[n.fn].cuda; *p; ++p) {
        if (*p == '%' && p[1] >= '0' && p[1] <= '2') {
          value += temp(static_cast<size_t>(n.args[static_cast<size_t>(p[1] - '0')]));
          ++p;
        } else {
          value += *p;
        }
      }
    }
    code += indent + "const float " + temp(i) + " = " + value + ";\n";
  }
  code += indent + result + " = " + temp(nodes_.size() - 1) + ";\n";
  return code;
}

std::vector<std::string> FusedExpr::functionNames() {
  std::vector<std::string> out;
  for (const Function& f : kFunctions) out.emplace_back(f.name);
  return out;
}

}  // namespace rammer::ops
