#include "core/passes/epilogue_fusion.h"

#include <algorithm>
#include <optional>

#include "core/ops/math/fused_epilogue.h"
#include "core/ops/math/fused_expr.h"

namespace rammer::passes {

namespace {

bool floatKnown(const ir::TensorType& t) { return t.dtype == ir::DType::Float32 && t.fullyKnown(); }

// The Conv / Gemm / MatMul whose result `v` is, when `consumer` is its only
// reader and it is no graph output; kNone otherwise.
ir::NodeId gemmFeeding(const ir::Graph& g, ir::ValueId v, ir::NodeId consumer) {
  if (v == ir::kNone) return ir::kNone;
  const ir::Value& value = g.value(v);
  if (value.producer == ir::kNone || value.isGraphOutput) return ir::kNone;
  if (std::any_of(value.consumers.begin(), value.consumers.end(), [&](ir::NodeId c) { return c != consumer; }))
    return ir::kNone;
  const ir::Node& n = g.node(value.producer);
  if (n.removed || !(n.domain.empty() || n.domain == "ai.onnx") || !ops::epilogueOpFor(n.opType)) return ir::kNone;
  if (n.outputs.size() != 1 || n.inputs.size() > ops::epilogueOpFor(n.opType)->arity) return ir::kNone;
  return value.producer;
}

struct Match {
  ir::NodeId gemm = ir::kNone;
  ops::FusedExpr epilogue;          // x0: the product; x1..: `extras`
  std::vector<ir::ValueId> extras;  // F's other inputs, each once
};

std::optional<Match> matchAt(const ir::Graph& g, ir::NodeId fusedId) {
  const ir::Node& f = g.node(fusedId);
  if (f.outputs.size() != 1 || f.output(0) == ir::kNone) return std::nullopt;
  const ir::TensorType& out = g.value(f.output(0)).type;
  if (!floatKnown(out)) return std::nullopt;
  Match m;
  ir::ValueId product = ir::kNone;
  for (ir::ValueId v : f.inputs) {
    const ir::NodeId n = gemmFeeding(g, v, fusedId);
    if (n == ir::kNone || g.value(v).type.shape != out.shape || !floatKnown(g.value(v).type)) continue;
    m.gemm = n;
    product = v;
    break;
  }
  if (m.gemm == ir::kNone) return std::nullopt;
  // x<k> of the element-wise expression -> x0 (the product) or x1.. (the others, each once).
  std::vector<int> map;
  for (ir::ValueId v : f.inputs) {
    if (v == product) {
      map.push_back(0);
      continue;
    }
    if (v == ir::kNone) return std::nullopt;
    const ir::TensorType& t = g.value(v).type;
    // The epilogue reads each other input at the output's index, or its only element.
    if (!floatKnown(t) || (t.shape != out.shape && ir::numElements(t.shape) != 1)) return std::nullopt;
    auto at = std::find(m.extras.begin(), m.extras.end(), v);
    if (at == m.extras.end()) at = m.extras.insert(m.extras.end(), v);
    map.push_back(static_cast<int>(at - m.extras.begin()) + 1);
  }
  try {
    m.epilogue = ops::FusedExpr::parse(f.attrs.getString("expr", "")).remapInputs(map);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return m;
}

}  // namespace

PassResult EpilogueFusion::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& f = g.node(id);
    if (f.removed || f.domain != ops::kRammerDomain || f.opType != "FusedElementwise") continue;
    auto m = matchAt(g, id);
    if (!m) continue;
    const ir::Node gemm = g.node(m->gemm);
    const ir::Node elementwise = f;
    const ops::EpilogueOp& op = *ops::epilogueOpFor(gemm.opType);
    ir::Node fused;
    fused.name = gemm.name;
    fused.opType = std::string(op.fused);
    fused.domain = ops::kRammerDomain;
    fused.attrs = gemm.attrs;
    fused.attrs.set(std::string(ops::kEpilogueAttr), m->epilogue.toString());
    // "OpType:name" of every original node, as ElementwiseFusion lists them
    // (schedule edits naming one of them find the fused node).
    std::vector<std::string> members = {gemm.opType + ":" + gemm.name};
    const ir::AttrValue* inner = elementwise.attrs.find("fused_nodes");
    if (const auto* list = inner ? std::get_if<std::vector<std::string>>(inner) : nullptr)
      members.insert(members.end(), list->begin(), list->end());
    else
      members.push_back(elementwise.opType + ":" + elementwise.name);
    fused.attrs.set("fused_nodes", members);
    fused.inputs = gemm.inputs;
    fused.inputs.resize(op.arity, ir::kNone);
    fused.inputs.insert(fused.inputs.end(), m->extras.begin(), m->extras.end());
    fused.outputs = elementwise.outputs;
    g.removeNode(id);
    g.removeNode(m->gemm);
    g.addNode(std::move(fused));
    ctx.note("fused '" + elementwise.name + "' (" + m->epilogue.toString() + ") into the epilogue of " + gemm.opType +
             " '" + gemm.name + "'");
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
