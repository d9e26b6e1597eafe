#include "core/passes/layernorm_fusion.h"

#include <algorithm>
#include <optional>

#include "core/passes/pattern_match.h"

namespace rammer::passes {

namespace {

// A ReduceMean's axes, normalized and sorted, when they are known and it
// keeps the reduced dims.
std::optional<std::vector<int64_t>> meanAxes(const ir::Graph& g, const ir::Node& mean, int64_t rank) {
  if (mean.attrs.getInt("keepdims", 1) != 1) return std::nullopt;
  std::vector<int64_t> axes;
  if (mean.attrs.has("axes")) {
    axes = mean.attrs.getInts("axes");
  } else if (mean.input(1) != ir::kNone) {
    const auto& c = g.value(mean.input(1)).constant;
    if (!c) return std::nullopt;
    axes = c->toInt64s();
  }
  if (axes.empty()) return std::nullopt;  // all axes, or noop_with_empty_axes
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

// The normalized shape's affine parameter as a constant of exactly that
// shape: a scalar is broadcast, leading 1s are dropped, nullopt otherwise.
std::optional<ir::Tensor> affineOf(const ir::Tensor& p, const ir::Shape& normalized) {
  const int64_t n = ir::numElements(normalized);
  ir::Tensor out(ir::DType::Float32, normalized);
  if (p.numel() == 1) {
    std::fill(out.data<float>(), out.data<float>() + n, p.data<float>()[0]);
    return out;
  }
  ir::Shape s = p.shape();
  while (s.size() > normalized.size() && s.front() == 1) s.erase(s.begin());
  if (s != normalized) return std::nullopt;
  std::copy(p.data<float>(), p.data<float>() + n, out.data<float>());
  return out;
}

// The constant operand of a binary node whose other operand is `v`.
std::optional<ir::ValueId> otherConstant(const ir::Graph& g, const ir::Node& n, ir::ValueId v) {
  if (n.inputs.size() != 2) return std::nullopt;
  const ir::ValueId other = n.input(0) == v ? n.input(1) : n.input(1) == v ? n.input(0) : ir::kNone;
  if (other == ir::kNone || other == v || !ir::floatConstant(g, other)) return std::nullopt;
  return other;
}

struct Match {
  std::vector<ir::NodeId> nodes;  // everything the LayerNormalization replaces
  ir::ValueId x = ir::kNone, out = ir::kNone;
  int64_t axis = 0;
  float epsilon = 0;
  ir::Tensor gamma, beta;
};

std::optional<Match> matchAt(const ir::Graph& g, ir::NodeId divId) {
  const ir::Node& div = g.node(divId);
  const ir::ValueId d = div.input(0), s = div.input(1);
  const ir::NodeId subId = producerOf(g, d, "Sub");
  const ir::NodeId sqrtId = producerOf(g, s, "Sqrt");
  if (subId == ir::kNone || sqrtId == ir::kNone) return std::nullopt;
  const ir::Node& sub = g.node(subId);
  Match m;
  m.x = sub.input(0);
  const ir::ValueId mean = sub.input(1);
  const ir::NodeId meanId = producerOf(g, mean, "ReduceMean");
  if (meanId == ir::kNone || g.node(meanId).input(0) != m.x) return std::nullopt;

  const ir::ValueId ve = g.node(sqrtId).input(0);
  const ir::NodeId addId = producerOf(g, ve, "Add");
  if (addId == ir::kNone) return std::nullopt;
  const ir::Node& add = g.node(addId);
  // var + eps, either way round.
  ir::ValueId var = add.input(0);
  std::optional<float> eps = scalarConstant(g, add.input(1));
  if (!eps) {
    var = add.input(1);
    eps = scalarConstant(g, add.input(0));
  }
  if (!eps) return std::nullopt;
  const ir::NodeId varId = producerOf(g, var, "ReduceMean");
  if (varId == ir::kNone) return std::nullopt;
  const ir::ValueId p = g.node(varId).input(0);
  // d^2 as Pow(d, 2) or Mul(d, d).
  ir::NodeId squareId = producerOf(g, p, "Pow");
  if (squareId != ir::kNone) {
    const auto exponent = scalarConstant(g, g.node(squareId).input(1));
    if (g.node(squareId).input(0) != d || !exponent || *exponent != 2.0f) return std::nullopt;
  } else {
    squareId = producerOf(g, p, "Mul");
    if (squareId == ir::kNone || g.node(squareId).input(0) != d || g.node(squareId).input(1) != d)
      return std::nullopt;
  }

  const ir::TensorType& xt = g.value(m.x).type;
  if (xt.dtype != ir::DType::Float32 || !xt.rankKnown) return std::nullopt;
  const auto rank = static_cast<int64_t>(xt.shape.size());
  const auto axes = meanAxes(g, g.node(meanId), rank);
  if (!axes || axes != meanAxes(g, g.node(varId), rank)) return std::nullopt;
  // Trailing and contiguous: LayerNormalization normalizes [axis, rank).
  for (size_t i = 0; i < axes->size(); ++i)
    if ((*axes)[i] != rank - static_cast<int64_t>(axes->size() - i)) return std::nullopt;
  m.axis = axes->front();
  const ir::Shape normalized(xt.shape.begin() + m.axis, xt.shape.end());
  if (!ir::isFullyKnown(normalized)) return std::nullopt;

  if (!readOnlyBy(g, mean, {subId}) || !readOnlyBy(g, d, {squareId, divId}) || !readOnlyBy(g, p, {varId}) ||
      !readOnlyBy(g, var, {addId}) || !readOnlyBy(g, ve, {sqrtId}) || !readOnlyBy(g, s, {divId}))
    return std::nullopt;
  m.nodes = {meanId, subId, squareId, varId, addId, sqrtId, divId};
  m.epsilon = *eps;
  m.out = div.output(0);

  // Optional affine: * gamma, then + beta, each the only reader; absent,
  // they are ones and zeros of the normalized shape.
  auto follow = [&](const char* op) -> std::optional<ir::Tensor> {
    const ir::Value& v = g.value(m.out);
    if (v.isGraphOutput || v.consumers.size() != 1) return std::nullopt;
    const ir::Node& next = g.node(v.consumers[0]);
    if (next.removed || !next.domain.empty() || next.opType != op) return std::nullopt;
    const auto c = otherConstant(g, next, m.out);
    if (!c) return std::nullopt;
    auto param = affineOf(*ir::floatConstant(g, *c), normalized);
    if (!param) return std::nullopt;
    m.nodes.push_back(v.consumers[0]);
    m.out = next.output(0);
    return param;
  };
  auto filled = [&](float value) {
    ir::Tensor t(ir::DType::Float32, normalized);
    std::fill(t.data<float>(), t.data<float>() + t.numel(), value);
    return t;
  };
  std::optional<ir::Tensor> gamma = follow("Mul");
  std::optional<ir::Tensor> beta = gamma ? follow("Add") : std::nullopt;
  m.gamma = gamma ? std::move(*gamma) : filled(1.0f);
  m.beta = beta ? std::move(*beta) : filled(0.0f);
  return m;
}

}  // namespace

PassResult LayerNormFusion::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto divId = static_cast<ir::NodeId>(i);
    const ir::Node& div = g.node(divId);
    if (div.removed || !div.domain.empty() || div.opType != "Div") continue;
    auto m = matchAt(g, divId);
    if (!m) continue;
    const std::string name = g.node(m->nodes.back()).name;
    for (ir::NodeId n : m->nodes) g.removeNode(n);
    ir::ValueId gamma = g.addValue(g.uniqueValueName(name + ".scale"), m->gamma.type());
    g.value(gamma).constant = std::move(m->gamma);
    ir::ValueId beta = g.addValue(g.uniqueValueName(name + ".bias"), m->beta.type());
    g.value(beta).constant = std::move(m->beta);
    ir::Node ln;
    ln.name = name;
    ln.opType = "LayerNormalization";
    ln.inputs = {m->x, gamma, beta};
    ln.outputs = {m->out};
    ln.attrs.set("axis", m->axis);
    ln.attrs.set("epsilon", m->epsilon);
    g.addNode(std::move(ln));
    ctx.note("fused a decomposed layer normalization (" + std::to_string(m->nodes.size()) + " nodes) into " +
             "LayerNormalization '" + name + "'");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
