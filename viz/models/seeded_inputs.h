#pragma once
// Inputs for "Compile & Run": one tensor per graph input, filled from a
// seeded generator so a run (and a re-run after an edit) sees the same data.
// Floats are uniform in [-1, 1), integer inputs 0..9 (safe as indices into
// small tables), bools 0/1.
#include <cstdint>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"

namespace rammer::viz {

// Fails naming the input whose shape is not fully known, whose dtype cannot
// be generated, or which is absurdly large.
ir::Result<std::vector<ir::Tensor>> makeSeededInputs(const ir::Graph& graph, uint64_t seed);

}  // namespace rammer::viz
