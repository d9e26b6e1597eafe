#pragma once
// The shape and data-movement ops, split by family; registerTensorOps()
// (tensor_ops.cpp) calls each of these.
#include "core/ops/op_registry.h"

namespace rammer::ops::tensor {

void registerReshapeOps(OpRegistry& r);   // Reshape, Flatten, Squeeze, Unsqueeze, Shape, Size, Identity, Dropout
void registerSliceOps(OpRegistry& r);     // Concat, Split, Slice, Gather
void registerLayoutOps(OpRegistry& r);    // Transpose, Expand, Tile, Pad, DepthToSpace, SpaceToDepth
void registerConstantOps(OpRegistry& r);  // Constant, ConstantOfShape, Range
void registerCastOps(OpRegistry& r);      // Cast
void registerStringOps(OpRegistry& r);    // StringNormalizer
void registerMaskOps(OpRegistry& r);      // Trilu
void registerIndexOps(OpRegistry& r);     // GatherElements, ScatterND

}  // namespace rammer::ops::tensor
