#pragma once
// Seeded inputs for a model (rammer run --random, the studio's Compile &
// Run, exported projects): the same seed gives the same tensors on every
// machine and in every tool, since the generator and the mapping from its
// bits to values are fixed here rather than left to <random>'s
// implementation-defined distributions.
#include <cstdint>
#include <vector>

#include "core/ir/graph.h"

namespace rammer::exec {

// Floats uniform in [-1, 1), integers in 0..9 (safe as indices into small
// tables), bools 0/1. Fails naming the input (as the diagnostic's node) when
// its shape is not fully known, its dtype cannot be generated, or it is
// absurdly large.
ir::Result<ir::Tensor> randomTensor(const std::string& name, const ir::TensorType& type, uint64_t& state);

// One tensor per graph input, in order, all drawn from one stream seeded by
// `seed`. Refused, before any is made, when together they exceed
// `maxMemoryBytes` (0: the default budget of memory_budget.h).
ir::Result<std::vector<ir::Tensor>> makeRandomInputs(const ir::Graph& graph, uint64_t seed,
                                                     int64_t maxMemoryBytes = 0);

}  // namespace rammer::exec
