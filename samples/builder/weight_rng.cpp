#include "samples/builder/weight_rng.h"

#include <cmath>

namespace rammer::samples {

ir::Tensor WeightRng::rangeTensor(ir::Shape shape, float lo, float hi) {
  ir::Tensor t(ir::DType::Float32, std::move(shape));
  for (float& v : t.values<float>()) v = uniform(lo, hi);
  return t;
}

ir::Tensor WeightRng::uniformTensor(ir::Shape shape, float bound) { return rangeTensor(std::move(shape), -bound, bound); }

ir::Tensor WeightRng::heUniform(ir::Shape shape, int64_t fanIn) {
  // Uniform on [-b, b] has variance b^2/3; b = sqrt(6/fanIn) gives 2/fanIn.
  const float bound = std::sqrt(6.0f / static_cast<float>(fanIn > 0 ? fanIn : 1));
  return uniformTensor(std::move(shape), bound);
}

}  // namespace rammer::samples
