#include "core/ops/op_registry.h"
#include "core/ops/tensor/tensor_families.h"

namespace rammer::ops {

void registerTensorOps(OpRegistry& r) {
  tensor::registerReshapeOps(r);
  tensor::registerSliceOps(r);
  tensor::registerLayoutOps(r);
  tensor::registerConstantOps(r);
  tensor::registerCastOps(r);
  tensor::registerStringOps(r);
  tensor::registerMaskOps(r);
  tensor::registerIndexOps(r);
}

}  // namespace rammer::ops
