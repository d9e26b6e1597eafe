#pragma once
// Seeded inputs for a model (rammer run --random): the same seed gives the
// same tensors on every machine, since the generator and the mapping from
// its bits to values are fixed here rather than left to <random>'s
// implementation-defined distributions.
#include <cstdint>
#include <vector>

#include "core/ir/graph.h"

namespace rammer::cli {

// Floats uniform in [-1, 1], integers in 0..9, bools 0/1. Fails naming the
// input when its shape is not fully known or its dtype cannot be generated.
ir::Result<ir::Tensor> randomTensor(const std::string& name, const ir::TensorType& type, uint64_t& state);

// One tensor per graph input, in order, all drawn from one stream seeded by `seed`.
ir::Result<std::vector<ir::Tensor>> makeRandomInputs(const ir::Graph& graph, uint64_t seed);

}  // namespace rammer::cli
