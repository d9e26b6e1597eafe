#include "core/ops/op_context.h"

namespace rammer::ops {

const ir::TensorType& OpContext::type(size_t i) const {
  if (!has(i)) fail("input " + std::to_string(i) + " is required but missing");
  return types_[i];
}

int64_t OpContext::rank(size_t i) const {
  const ir::TensorType& t = type(i);
  if (!t.rankKnown) fail("the rank of input " + std::to_string(i) + " is unknown");
  return static_cast<int64_t>(t.shape.size());
}

const ir::Tensor& OpContext::tensor(size_t i) const {
  const ir::Tensor* t = value(i);
  if (!t) fail("the value of input " + std::to_string(i) + " must be known (a constant)");
  return *t;
}

void OpContext::expectInputs(size_t min, size_t max) const {
  size_t present = types_.size();
  while (present > 0 && !has(present - 1)) --present;  // trailing omitted inputs do not count
  if (present < min || present > max)
    fail("expects " + (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
         " inputs, got " + std::to_string(present));
}

void OpContext::expectDType(size_t i, std::initializer_list<ir::DType> allowed) const {
  ir::DType t = dtype(i);
  std::string names;
  for (ir::DType a : allowed) {
    if (a == t) return;
    if (!names.empty()) names += ", ";
    names += ir::dtypeName(a);
  }
  fail("input " + std::to_string(i) + " has type " + std::string(ir::dtypeName(t)) + ", expected " + names);
}

int64_t normalizeAxis(int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1) || (rank == 0 && axis != 0 && axis != -1))
    throw OpError(what + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace rammer::ops
