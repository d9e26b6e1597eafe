#include "viz/models/seeded_inputs.h"

namespace rammer::viz {

namespace {

// xorshift64*: small and fully specified, so every machine draws the same values.
class Generator {
 public:
  explicit Generator(uint64_t seed) : state_(seed * 0x2545F4914F6CDD1Dull + 0x9E3779B97F4A7C15ull) {}
  uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }
  double signedUnit() { return static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0; }

 private:
  uint64_t state_;
};

constexpr int64_t kMaxElements = int64_t{1} << 30;

}  // namespace

ir::Result<std::vector<ir::Tensor>> makeSeededInputs(const ir::Graph& graph, uint64_t seed) {
  Generator gen(seed);
  std::vector<ir::Tensor> out;
  std::vector<ir::Diagnostic> errors;
  for (ir::ValueId id : graph.inputs()) {
    const ir::Value& v = graph.value(id);
    const ir::TensorType& type = v.type;
    if (!type.fullyKnown()) {
      errors.push_back(ir::makeError("input has unknown dims; give the model a batch size or fixed shapes", v.name));
      continue;
    }
    if (type.dtype == ir::DType::String || type.dtype == ir::DType::Undefined) {
      errors.push_back(ir::makeError("input of dtype " + std::string(ir::dtypeName(type.dtype)) +
                                         " cannot be generated",
                                     v.name));
      continue;
    }
    if (ir::numElements(type.shape) > kMaxElements) {
      errors.push_back(ir::makeError("input of shape " + ir::shapeToString(type.shape) + " is too large to generate",
                                     v.name));
      continue;
    }
    ir::Tensor t(type.dtype, type.shape);
    const int64_t n = t.numel();
    if (type.dtype == ir::DType::Float32) {
      float* p = t.data<float>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(gen.signedUnit());
    } else if (ir::isFloating(type.dtype)) {
      for (int64_t i = 0; i < n; ++i) t.setDouble(i, gen.signedUnit());
    } else if (type.dtype == ir::DType::Bool) {
      for (int64_t i = 0; i < n; ++i) t.setDouble(i, static_cast<double>(gen.next() >> 63));
    } else {
      for (int64_t i = 0; i < n; ++i) t.setDouble(i, static_cast<double>(gen.next() % 10));
    }
    out.push_back(std::move(t));
  }
  if (!errors.empty()) return errors;
  return out;
}

}  // namespace rammer::viz
