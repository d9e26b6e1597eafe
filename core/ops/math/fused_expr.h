#pragma once
// The expression a FusedElementwise node computes per output element, e.g.
// "(relu (add x0 x1))". One table of functions drives parsing, CPU
// evaluation and CUDA printing, so the three cannot drift apart.
#include <cstdint>
#include <string>
#include <vector>

namespace rammer::ops {

class FusedExpr {
 public:
  // An expression node: an input x<k>, a float literal, or a function call.
  struct Node {
    enum class Kind { Input, Literal, Call } kind = Kind::Literal;
    int input = 0;
    float literal = 0;
    int fn = -1;            // index into the function table
    std::vector<int> args;  // indices of argument nodes
  };

  // Throws OpError naming the position and the problem.
  static FusedExpr parse(const std::string& text);
  static FusedExpr input(int k);
  static FusedExpr literal(float v);
  // Throws OpError for an unknown function or a wrong number of arguments.
  static FusedExpr call(const std::string& fn, const std::vector<FusedExpr>& args);

  // Replaces every input x<k> by exprs[k] (inputs beyond exprs stay).
  FusedExpr substitute(const std::vector<FusedExpr>& exprs) const;
  // For an input k that held a bool or integer word and will hold its value
  // (0/1 as float) instead, once a producer's expression is inlined for it:
  // int_to_float(xk) becomes xk and where_word(xk, a, b) where(xk, a, b).
  FusedExpr readingValueOf(int k) const;
  // Renumbers inputs: x<k> becomes x<map[k]>.
  FusedExpr remapInputs(const std::vector<int>& map) const;

  std::string toString() const;
  int numInputs() const;       // highest input index + 1
  int numOperations() const;   // function calls (FLOPs per element, roughly)
  const std::vector<Node>& nodes() const { return nodes_; }
  int root() const { return static_cast<int>(nodes_.size()) - 1; }

  // out[i] = f(in[0][i*stride[0]], ...) for i < n; stride 0 broadcasts.
  void evalRow(const float* const* in, const int64_t* stride, float* out, int64_t n) const;
  float evalScalar(const float* xs) const;
  // CUDA statements computing the expression into `result` (one const
  // temporary per node); `inputs[k]` is the text that reads input k.
  std::string toCuda(const std::vector<std::string>& inputs, const std::string& result,
                     const std::string& indent = "  ") const;

  // Function names the language knows.
  static std::vector<std::string> functionNames();

 private:
  int append(const FusedExpr& other);  // copies other's nodes; returns its root
  std::vector<Node> nodes_;  // postfix: arguments precede their call; root last
};

}  // namespace rammer::ops
