#pragma once
// Summary statistics of a parameter tensor for the inspector: enough to spot
// a dead (all-zero) filter, an exploding weight or a NaN at a glance.
#include <cstdint>
#include <optional>

#include "core/ir/tensor.h"

namespace rammer::viz {

struct TensorStats {
  int64_t count = 0;      // elements
  int64_t finite = 0;     // elements the moments below are over
  int64_t zeros = 0;
  int64_t nonFinite = 0;  // NaN and ±inf
  double min = 0;         // over finite elements (0 when there are none)
  double max = 0;
  double mean = 0;
  double stddev = 0;      // population standard deviation
};

// Nothing for string and undefined tensors.
std::optional<TensorStats> tensorStats(const ir::Tensor& tensor);

}  // namespace rammer::viz
