#include "core/passes/dead_code_elimination.h"

#include <algorithm>

namespace rammer::passes {

PassResult DeadCodeElimination::run(ir::Graph& g, PassContext& ctx) {
  auto order = g.topologicalOrder();
  if (!order) return false;
  bool changed = false;
  // Reverse order: removing a consumer first exposes its dead producers.
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    const ir::Node& n = g.node(*it);
    bool used = std::any_of(n.outputs.begin(), n.outputs.end(), [&](ir::ValueId v) {
      return v != ir::kNone && (!g.value(v).consumers.empty() || g.value(v).isGraphOutput);
    });
    if (used) continue;
    ctx.note("removed unused " + n.opType + " '" + n.name + "'");
    g.removeNode(*it);
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes
