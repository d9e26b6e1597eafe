#pragma once
// Generated programs compute in float32 (GPU and host alike): graph tensors
// go in as float32 words, and outputs come back as the graph's dtype.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/ir/tensor.h"

namespace rammer::runtime {

// `t` as `numel` float32 words; an error naming `what` for a wrong size or
// a string tensor.
ir::Result<std::vector<float>> floatsOf(const ir::Tensor& t, int64_t numel, const std::string& what);

// A graph output from the words its buffer holds (its dtype, float32 when undefined).
ir::Tensor outputTensor(const ir::Value& value, std::span<const float> words);

}  // namespace rammer::runtime
