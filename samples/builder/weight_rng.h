#pragma once
// Seeded random weights. Only std::mt19937's raw output is used (its sequence
// is fixed by the C++ standard) and turned into floats by plain arithmetic:
// the standard distributions are implementation-defined, and the same seed
// must give the same bytes with every standard library.
#include <cstdint>
#include <random>

#include "core/ir/tensor.h"

namespace rammer::samples {

class WeightRng {
 public:
  explicit WeightRng(uint32_t seed) : gen_(seed) {}

  // Uniform in [0, 1), 24 random bits.
  float unit() { return static_cast<float>(gen_() >> 8) * (1.0f / 16777216.0f); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * unit(); }
  // Uniform integer in [0, n); n > 0. The modulo bias is irrelevant here.
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(gen_() % n); }

  // Float32 tensor, each element uniform in [-bound, bound).
  ir::Tensor uniformTensor(ir::Shape shape, float bound);
  // Float32 tensor, each element uniform in [lo, hi).
  ir::Tensor rangeTensor(ir::Shape shape, float lo, float hi);

  // He (Kaiming) uniform init for a layer feeding a ReLU: variance 2/fanIn.
  ir::Tensor heUniform(ir::Shape shape, int64_t fanIn);

 private:
  std::mt19937 gen_;
};

}  // namespace rammer::samples
