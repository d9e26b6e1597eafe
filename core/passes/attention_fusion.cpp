#include "core/passes/attention_fusion.h"

#include <optional>

#include "core/ops/nn/attention_op.h"
#include "core/passes/pattern_match.h"

namespace rammer::passes {

namespace {

// The producer of v of type `op` when v is read by one node only (the next
// in the chain) and is no graph output, or kNone.
ir::NodeId soleProducer(const ir::Graph& g, ir::ValueId v, const char* op) {
  const ir::NodeId p = producerOf(g, v, op);
  if (p == ir::kNone || g.value(v).isGraphOutput || g.value(v).consumers.size() != 1) return ir::kNone;
  return p;
}

struct Match {
  std::vector<ir::NodeId> nodes;
  ir::ValueId q = ir::kNone, kt = ir::kNone, v = ir::kNone, mask = ir::kNone, out = ir::kNone;
  float scale = 1.0f;
};

// From the Softmax backwards and forwards.
std::optional<Match> matchAt(const ir::Graph& g, ir::NodeId softmaxId) {
  const ir::Node& softmax = g.node(softmaxId);
  Match m;
  const ir::Value& p = g.value(softmax.output(0));
  if (p.isGraphOutput || p.consumers.size() != 1) return std::nullopt;
  const ir::Node& pv = g.node(p.consumers[0]);
  if (pv.removed || !pv.domain.empty() || pv.opType != "MatMul" || pv.input(0) != softmax.output(0)) return std::nullopt;
  ir::ValueId x = softmax.input(0);
  const ir::TensorType& xt = g.value(x).type;
  if (!xt.fullyKnown() || xt.shape.size() < 2) return std::nullopt;
  const auto rank = static_cast<int64_t>(xt.shape.size());
  const int64_t axis = softmax.attrs.getInt("axis", g.opsetVersion < 13 ? 1 : -1);
  if (axis != -1 && axis != rank - 1) return std::nullopt;
  if (g.opsetVersion < 13 && rank != 2) return std::nullopt;  // the old 2-D coercion differs
  m.nodes = {softmaxId, p.consumers[0]};
  // Optional mask: Add(x, mask) either way round, the other side scaled scores or scores.
  if (const ir::NodeId add = soleProducer(g, x, "Add"); add != ir::kNone) {
    const ir::Node& a = g.node(add);
    const auto producedBy = [&](ir::ValueId in) {
      return soleProducer(g, in, "Mul") != ir::kNone || soleProducer(g, in, "Div") != ir::kNone ||
             soleProducer(g, in, "MatMul") != ir::kNone;
    };
    const bool first = producedBy(a.input(0));
    if (!first && !producedBy(a.input(1))) return std::nullopt;
    m.mask = first ? a.input(1) : a.input(0);
    x = first ? a.input(0) : a.input(1);
    m.nodes.push_back(add);
  }
  // Optional scale: Mul by or Div by a scalar constant.
  for (const char* op : {"Mul", "Div"}) {
    const ir::NodeId s = soleProducer(g, x, op);
    if (s == ir::kNone) continue;
    const ir::Node& n = g.node(s);
    std::optional<float> c = scalarConstant(g, n.input(1));
    ir::ValueId scores = n.input(0);
    if (!c && op[0] == 'M') {
      c = scalarConstant(g, n.input(0));
      scores = n.input(1);
    }
    if (!c || *c == 0.0f) return std::nullopt;
    m.scale = op[0] == 'M' ? *c : 1.0f / *c;
    x = scores;
    m.nodes.push_back(s);
    break;
  }
  const ir::NodeId qk = soleProducer(g, x, "MatMul");
  if (qk == ir::kNone) return std::nullopt;
  m.nodes.push_back(qk);
  m.q = g.node(qk).input(0);
  m.kt = g.node(qk).input(1);
  m.v = pv.input(1);
  m.out = pv.output(0);
  // Same rank and leading dims for Q, KT, V; a mask that broadcasts.
  const ir::TensorType &qt = g.value(m.q).type, &kt = g.value(m.kt).type, &vt = g.value(m.v).type;
  if (!qt.fullyKnown() || !kt.fullyKnown() || !vt.fullyKnown()) return std::nullopt;
  if (qt.dtype != ir::DType::Float32 || kt.dtype != ir::DType::Float32 || vt.dtype != ir::DType::Float32) return std::nullopt;
  const ir::TensorType* mt = m.mask == ir::kNone ? nullptr : &g.value(m.mask).type;
  if (mt && (!mt->fullyKnown() || mt->dtype != ir::DType::Float32)) return std::nullopt;
  try {
    const ops::AttentionShape s = ops::AttentionShape::of(qt.shape, kt.shape, vt.shape, mt ? &mt->shape : nullptr);
    if (s.d > ops::kAttentionMaxHeadDim || s.dv > ops::kAttentionMaxHeadDim) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return m;
}

}  // namespace

PassResult AttentionFusion::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& n = g.node(id);
    if (n.removed || !n.domain.empty() || n.opType != "Softmax") continue;
    auto m = matchAt(g, id);
    if (!m) continue;
    // Named after the P V MatMul, marked as ElementwiseFusion marks its
    // nodes: a fused and an unfused graph of one model share no operator
    // name that means different nodes (schedule edits name one of them).
    const std::string name = g.node(m->nodes[1]).name + "+attention";
    for (ir::NodeId k : m->nodes) g.removeNode(k);
    ir::Node a;
    a.name = name;
    a.opType = "Attention";
    a.domain = ops::kRammerDomain;
    a.inputs = {m->q, m->kt, m->v};
    if (m->mask != ir::kNone) a.inputs.push_back(m->mask);
    a.outputs = {m->out};
    a.attrs.set("scale", m->scale);
    g.addNode(std::move(a));
    ctx.note("fused attention (" + std::to_string(m->nodes.size()) + " nodes" +
             (m->mask != ir::kNone ? ", with a mask" : "") + ") into Attention '" + name + "'");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
