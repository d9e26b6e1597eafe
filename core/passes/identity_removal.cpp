#include "core/passes/identity_removal.h"

namespace rammer::passes {

namespace {

bool isRemovable(const ir::Graph& g, const ir::Node& n) {
  if (!n.domain.empty()) return false;
  if (n.opType == "Identity") return n.inputs.size() == 1 && n.input(0) != ir::kNone;
  if (n.opType != "Dropout" || n.input(0) == ir::kNone) return false;
  // Training mode is refused by the op itself; a mask output that someone reads stays.
  ir::ValueId mask = n.output(1);
  return mask == ir::kNone || (g.value(mask).consumers.empty() && !g.value(mask).isGraphOutput);
}

// True when `in` can be renamed to a graph output: made by a node, read only
// by the node being removed, and not itself an input or output of the graph.
bool producerCanWriteOutput(const ir::Graph& g, ir::ValueId in) {
  const ir::Value& v = g.value(in);
  return v.producer != ir::kNone && !v.isGraphOutput && !v.isGraphInput && v.consumers.size() == 1;
}

void redirectProducer(ir::Graph& g, ir::ValueId in, ir::ValueId out) {
  ir::NodeId p = g.value(in).producer;
  for (ir::ValueId& slot : g.node(p).outputs)
    if (slot == in) slot = out;
  g.value(out).producer = p;
  g.value(in).producer = ir::kNone;
}

}  // namespace

PassResult IdentityRemoval::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    auto id = static_cast<ir::NodeId>(i);
    const ir::Node& n = g.node(id);
    if (n.removed || !isRemovable(g, n)) continue;
    const ir::ValueId in = n.input(0), out = n.output(0);
    const bool writesGraphOutput = out != ir::kNone && g.value(out).isGraphOutput;
    if (writesGraphOutput && !producerCanWriteOutput(g, in)) continue;  // keep: the name must survive
    ctx.note("removed " + n.opType + " '" + n.name + "'");
    g.removeNode(id);
    if (writesGraphOutput) redirectProducer(g, in, out);
    else if (out != ir::kNone) g.replaceAllUses(out, in);
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
