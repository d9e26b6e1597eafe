#include "core/passes/legacy_broadcast.h"

#include <optional>
#include <set>
#include <string>

#include "core/passes/node_writer.h"

namespace rammer::passes {

namespace {

// The ops that took `broadcast` and `axis` before opset 7.
bool isLegacyBinary(const ir::Node& n) {
  static const std::set<std::string> kOps = {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor",
                                              "Equal", "Greater", "Less"};
  return n.domain.empty() && n.inputs.size() == 2 && kOps.count(n.opType) != 0;
}

// Gives input 1 of `id` the shape `shape`: a constant is reshaped (a copy
// when others read it too), anything else goes through a Reshape view.
void reshapeSecondInput(ir::Graph& g, ir::NodeId id, const ir::Shape& shape) {
  const ir::ValueId b = g.node(id).input(1);
  const ir::Value& bv = g.value(b);
  if (bv.constant && bv.consumers.size() == 1 && !bv.isGraphOutput) {
    ir::Value& owned = g.value(b);
    owned.constant->reshape(shape);
    owned.type = owned.constant->type();
    return;
  }
  NodeWriter w(g, g.node(id).name + ".broadcast");
  ir::ValueId v;
  if (bv.constant) {
    ir::Tensor copy = *bv.constant;
    copy.reshape(shape);
    v = w.constant("", std::move(copy));
  } else {
    v = w.reshape("", b, shape);
  }
  g.setNodeInput(id, 1, v);
}

// The numpy shape of B that maps its elements as the legacy op did: B's
// dims followed by 1s up to the end of A (aligned at `axis`). Empty when
// the shapes are not known or do not fit.
std::optional<ir::Shape> numpyShape(const ir::Node& n, const ir::TensorType& a, const ir::TensorType& b) {
  if (!a.fullyKnown() || !b.fullyKnown()) return std::nullopt;
  const int64_t ra = static_cast<int64_t>(a.shape.size()), rb = static_cast<int64_t>(b.shape.size());
  int64_t axis = n.attrs.getInt("axis", ra - rb);
  if (axis < 0) axis += ra;
  if (axis < 0 || axis + rb > ra) return std::nullopt;
  ir::Shape s = b.shape;
  s.resize(static_cast<size_t>(ra - axis), 1);
  return s;
}

}  // namespace

PassResult LegacyBroadcast::run(ir::Graph& g, PassContext& ctx) {
  if (g.opsetVersion >= 7) return false;
  bool changed = false;
  const size_t slots = g.numNodeSlots();  // Reshapes added here need nothing
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node n = g.node(id);  // a copy: adding a Reshape moves the nodes
    if (n.removed || n.input(0) == ir::kNone || n.input(1) == ir::kNone) continue;
    const ir::TensorType a = g.value(n.input(0)).type, b = g.value(n.input(1)).type;
    if (isLegacyBinary(n) && n.attrs.getInt("broadcast", 0) != 0) {
      const auto shape = numpyShape(n, a, b);
      if (!shape) continue;  // the fusion keeps refusing it; the reference still runs it
      if (*shape != b.shape) reshapeSecondInput(g, id, *shape);
      g.node(id).attrs.erase("broadcast");
      g.node(id).attrs.erase("axis");
      ctx.note("numpy broadcast for " + n.opType + " '" + n.name + "'");
      changed = true;
    } else if (n.domain.empty() && n.opType == "PRelu" && a.rankKnown && a.shape.size() > 2 && b.rankKnown &&
               b.shape.size() == 1 && b.shape[0] > 1 && b.shape[0] == a.shape[1]) {
      // One slope per channel: [C] -> [C, 1, ..., 1] over the dims after it.
      ir::Shape s(a.shape.size() - 1, 1);
      s[0] = b.shape[0];
      reshapeSecondInput(g, id, s);
      ctx.note("per-channel slope of PRelu '" + n.name + "' as numpy broadcast");
      changed = true;
    }
  }
  return changed;
}

}  // namespace rammer::passes
