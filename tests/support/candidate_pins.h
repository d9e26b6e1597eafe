#pragma once
// Pins that put every operator of a graph on its k-th rKernel candidate:
// planning with pins k = 0, 1, ... up to maxCandidates runs every variant
// the library offers for the graph's shapes.
#include <algorithm>
#include <stdexcept>

#include "core/ir/graph.h"
#include "core/kernels/kernel_library.h"
#include "core/schedule/constraints.h"

namespace rammer::testing {

// Operator i on candidate `pick` (the last one where it has fewer); views
// (Flatten, Reshape, ...: no rTasks) get no pin.
inline schedule::Constraints candidatePins(const ir::Graph& g, size_t pick) {
  auto order = g.topologicalOrder();
  if (!order) throw std::runtime_error(order.errorText());
  schedule::Constraints c;
  for (ir::NodeId id : *order) {
    const ir::Node& n = g.node(id);
    auto ks = kernels::kernelsFor(g, id);
    if (ks && ks->isView) continue;
    if (!ks || ks->candidates.empty()) throw std::runtime_error(n.name + ": " + ks.errorText());
    c.kernelFor[n.name] = ks->candidates[std::min(pick, ks->candidates.size() - 1)].name;
  }
  return c;
}

// The most candidates any operator of `g` has.
inline size_t maxCandidates(const ir::Graph& g) {
  auto order = g.topologicalOrder();
  if (!order) throw std::runtime_error(order.errorText());
  size_t most = 0;
  for (ir::NodeId id : *order) {
    auto ks = kernels::kernelsFor(g, id);
    if (ks) most = std::max(most, ks->candidates.size());
  }
  return most;
}

}  // namespace rammer::testing
