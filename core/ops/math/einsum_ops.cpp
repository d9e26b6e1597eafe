// Einsum (opset 12+): the summation forms transformer exports write —
// batched products such as "bhqd,bhkd->bhqk", transposes, outer products,
// traces and diagonals, with "..." for broadcast leading dims — and the
// implicit form (no "->": the labels used once, alphabetically, after the
// ellipsis dims).
#include <algorithm>
#include <cctype>
#include <map>

#include "core/ops/op_registry.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops {

namespace {

// A label is a letter, or one of the ellipsis' dims, numbered from the
// right (so dims broadcast right-aligned across the operands).
constexpr int kEllipsisBase = 1000;

struct Equation {
  std::vector<std::vector<int>> inputs;  // labels per operand dim
  std::vector<int> output;               // labels per output dim
};

// Labels of one term for an operand of `rank` dims; `ellipsisRank` gets the
// dims the "..." stands for.
std::vector<int> parseTerm(const OpContext& ctx, const std::string& term, int64_t rank, int64_t& ellipsisRank) {
  int64_t letters = 0;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0) {
      if (ellipsis) ctx.fail("term '" + term + "' has more than one ellipsis");
      ellipsis = true;
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(term[i]))) {
      ++letters;
    } else {
      ctx.fail(std::string("term '") + term + "' has '" + term[i] + "', which is neither a letter nor '...'");
    }
  }
  ellipsisRank = ellipsis ? rank - letters : 0;
  if (ellipsisRank < 0 || (!ellipsis && letters != rank))
    ctx.fail("term '" + term + "' names " + std::to_string(letters) + " dims of an operand of rank " +
             std::to_string(rank));
  std::vector<int> labels;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      for (int64_t k = ellipsisRank; k > 0; --k) labels.push_back(kEllipsisBase + static_cast<int>(k));
      i += 2;
    } else {
      labels.push_back(term[i]);
    }
  }
  return labels;
}

Equation parseEquation(const OpContext& ctx) {
  std::string eq;
  for (char c : ctx.attrs().getString("equation", "")) {
    if (!std::isspace(static_cast<unsigned char>(c))) eq.push_back(c);
  }
  if (eq.empty()) ctx.fail("Einsum needs an 'equation' attribute");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ctx.numInputs())
    ctx.fail("equation '" + eq + "' has " + std::to_string(terms.size()) + " operand terms for " +
             std::to_string(ctx.numInputs()) + " inputs");
  Equation e;
  int64_t maxEllipsis = 0;
  std::map<int, int> uses;
  for (size_t i = 0; i < terms.size(); ++i) {
    const ir::TensorType& t = ctx.type(i);
    if (!t.rankKnown) ctx.fail("Einsum needs operands of known rank");
    int64_t ellipsisRank = 0;
    e.inputs.push_back(parseTerm(ctx, terms[i], static_cast<int64_t>(t.shape.size()), ellipsisRank));
    maxEllipsis = std::max(maxEllipsis, ellipsisRank);
    for (int l : e.inputs.back()) ++uses[l];
  }
  if (arrow != std::string::npos) {
    // The output's "..." stands for the widest operand's.
    const std::string out = eq.substr(arrow + 2);
    for (size_t i = 0; i < out.size(); ++i) {
      if (out.compare(i, 3, "...") == 0) {
        for (int64_t k = maxEllipsis; k > 0; --k) e.output.push_back(kEllipsisBase + static_cast<int>(k));
        i += 2;
      } else if (std::isalpha(static_cast<unsigned char>(out[i]))) {
        e.output.push_back(out[i]);
      } else {
        ctx.fail(std::string("output term '") + out + "' has '" + out[i] + "', which is neither a letter nor '...'");
      }
    }
    for (int l : e.output) {
      if (l < kEllipsisBase && !uses.count(l))
        ctx.fail(std::string("output label '") + static_cast<char>(l) + "' appears in no operand");
      if (std::count(e.output.begin(), e.output.end(), l) > 1)
        ctx.fail(std::string("output label '") + static_cast<char>(l) + "' appears twice");
    }
  } else {
    for (int64_t k = maxEllipsis; k > 0; --k) e.output.push_back(kEllipsisBase + static_cast<int>(k));
    for (const auto& [label, n] : uses)
      if (label < kEllipsisBase && n == 1) e.output.push_back(label);
  }
  return e;
}

// Each label's extent; ellipsis dims broadcast (1 against n), letters must agree.
std::map<int, int64_t> labelSizes(const OpContext& ctx, const Equation& e) {
  std::map<int, int64_t> size;
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const ir::Shape& s = ctx.shape(i);
    for (size_t d = 0; d < s.size(); ++d) {
      const int l = e.inputs[i][d];
      auto [it, fresh] = size.emplace(l, s[d]);
      if (fresh || it->second == s[d] || s[d] == ir::kUnknownDim) continue;
      if (it->second == ir::kUnknownDim) {
        it->second = s[d];
      } else if (l > kEllipsisBase && (it->second == 1 || s[d] == 1)) {
        it->second = std::max(it->second, s[d]);
      } else {
        ctx.fail(l > kEllipsisBase ? "the operands' '...' dims do not broadcast"
                                   : std::string("label '") + static_cast<char>(l) + "' has extents " +
                                         std::to_string(it->second) + " and " + std::to_string(s[d]));
      }
    }
  }
  return size;
}

std::vector<ir::TensorType> inferEinsum(const OpContext& ctx) {
  ctx.expectInputs(1, 16);
  for (size_t i = 1; i < ctx.numInputs(); ++i)
    if (ctx.dtype(i) != ctx.dtype(0)) ctx.fail("Einsum's operands must share one dtype");
  const Equation e = parseEquation(ctx);
  const auto size = labelSizes(ctx, e);
  ir::Shape out;
  for (int l : e.output) out.push_back(size.at(l));
  return {ir::TensorType{ctx.dtype(0), out}};
}

std::vector<ir::Tensor> computeEinsum(const OpContext& ctx) {
  const ir::DType dtype = inferEinsum(ctx).at(0).dtype;
  const Equation e = parseEquation(ctx);
  const auto size = labelSizes(ctx, e);
  // Loop order: the output's labels (row-major), then the summed ones.
  std::vector<int> loop = e.output;
  for (const auto& [l, n] : size)
    if (std::find(loop.begin(), loop.end(), l) == loop.end()) loop.push_back(l);
  std::vector<int64_t> extent;
  for (int l : loop) extent.push_back(size.at(l));
  // Per operand, its stride along each loop label (a repeated label, a
  // diagonal, adds its dims' strides; a broadcast dim has stride 0).
  std::vector<std::vector<int64_t>> stride(e.inputs.size(), std::vector<int64_t>(loop.size(), 0));
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const ir::Shape& s = ctx.tensor(i).shape();
    const std::vector<int64_t> st = tensor::stridesOf(s);
    for (size_t d = 0; d < s.size(); ++d) {
      if (s[d] == 1 && size.at(e.inputs[i][d]) != 1) continue;
      const auto at = std::find(loop.begin(), loop.end(), e.inputs[i][d]) - loop.begin();
      stride[i][static_cast<size_t>(at)] += st[d];
    }
  }
  ir::Shape outShape(extent.begin(), extent.begin() + static_cast<std::ptrdiff_t>(e.output.size()));
  ir::Tensor out = tensor::makeTensor(ctx, dtype, outShape);
  const int64_t outCount = out.numel();
  int64_t reduceCount = 1;
  for (size_t k = e.output.size(); k < loop.size(); ++k) reduceCount *= extent[k];
  std::vector<int64_t> index(loop.size(), 0);
  for (int64_t o = 0; o < outCount; ++o) {
    double sum = 0;
    for (int64_t r = 0; r < reduceCount; ++r) {
      double product = 1;
      for (size_t i = 0; i < e.inputs.size(); ++i) {
        int64_t at = 0;
        for (size_t k = 0; k < loop.size(); ++k) at += index[k] * stride[i][k];
        product *= ctx.tensor(i).getDouble(at);
      }
      sum += product;
      // Next summed index (the innermost loop labels).
      for (size_t k = loop.size(); k-- > e.output.size();) {
        if (++index[k] < extent[k]) break;
        index[k] = 0;
      }
    }
    out.setDouble(o, sum);
    for (size_t k = e.output.size(); k-- > 0;) {
      if (++index[k] < extent[k]) break;
      index[k] = 0;
    }
  }
  return {std::move(out)};
}

}  // namespace

void registerEinsumOps(OpRegistry& r) {
  OpDef def;
  def.type = "Einsum";
  def.category = OpCategory::MatMul;
  def.infer = inferEinsum;
  def.compute = computeEinsum;
  // A multiply and an add per operand per point of the full loop nest.
  def.flops = [](const OpContext& ctx, std::span<const ir::TensorType>) {
    const Equation e = parseEquation(ctx);
    double points = 1;
    for (const auto& [l, n] : labelSizes(ctx, e)) points *= static_cast<double>(std::max<int64_t>(n, 1));
    return 2.0 * points * static_cast<double>(std::max<size_t>(ctx.numInputs() - 1, 1));
  };
  r.add(std::move(def));
}

}  // namespace rammer::ops
