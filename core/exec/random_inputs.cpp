#include "core/exec/random_inputs.h"

#include "core/exec/memory_budget.h"

namespace rammer::exec {

namespace {

// splitmix64: tiny, well mixed, and fully specified (unlike std distributions).
uint64_t next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1): 53 random bits scaled.
double uniformSigned(uint64_t& state) {
  return static_cast<double>(next(state) >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace

ir::Result<ir::Tensor> randomTensor(const std::string& name, const ir::TensorType& type, uint64_t& state) {
  if (!type.fullyKnown())
    return ir::makeError("input '" + name + "' has shape " + (type.rankKnown ? ir::shapeToString(type.shape) : "[*]") +
                             " with unknown dims; give the model a batch size or fixed shapes",
                         name);
  const ir::DType dt = type.dtype;
  if (dt == ir::DType::String || dt == ir::DType::Undefined)
    return ir::makeError("input '" + name + "' has dtype " + std::string(ir::dtypeName(dt)) +
                             ", random values cannot be made for it",
                         name);
  // A guard against absurd declared shapes: fail with a message, not bad_alloc.
  constexpr int64_t kMaxElements = int64_t{1} << 31;
  if (ir::numElements(type.shape) > kMaxElements)
    return ir::makeError("input '" + name + "' has shape " + ir::shapeToString(type.shape) +
                             ", too large for random inputs",
                         name);
  ir::Tensor t(dt, type.shape);
  const int64_t n = t.numel();
  if (dt == ir::DType::Float32) {
    float* p = t.data<float>();
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(uniformSigned(state));
  } else if (ir::isFloating(dt)) {
    for (int64_t i = 0; i < n; ++i) t.setDouble(i, uniformSigned(state));
  } else if (dt == ir::DType::Bool) {
    for (int64_t i = 0; i < n; ++i) t.setDouble(i, static_cast<double>(next(state) & 1u));
  } else {
    for (int64_t i = 0; i < n; ++i) t.setDouble(i, static_cast<double>(next(state) % 10u));
  }
  return t;
}

ir::Result<std::vector<ir::Tensor>> makeRandomInputs(const ir::Graph& graph, uint64_t seed, int64_t maxMemoryBytes) {
  if (auto over = checkMemoryBudget(estimateInputs(graph), maxMemoryBytes, "the random inputs")) return *over;
  uint64_t state = seed;
  std::vector<ir::Tensor> out;
  std::vector<ir::Diagnostic> errors;
  for (ir::ValueId id : graph.inputs()) {
    const ir::Value& v = graph.value(id);
    auto t = randomTensor(v.name, v.type, state);
    if (!t) {
      errors.insert(errors.end(), t.errors().begin(), t.errors().end());
      continue;
    }
    out.push_back(std::move(t).value());
  }
  if (!errors.empty()) return errors;
  return out;
}

}  // namespace rammer::exec
