#pragma once
// com.rammer::Attention: softmax(scale * Q K^T + mask) V in one operator, the
// node AttentionFusion makes of the MatMul / scale / mask / Softmax / MatMul
// chain that exports write, so that a score row need never go to memory
// whole (the flash-attention rKernels stream K and V through shared memory).
//   inputs  Q [..., Sq, D], KT [..., D, Sk] (K already transposed, as the
//           exports' Transpose leaves it), V [..., Sk, Dv], optional mask
//           broadcastable to [..., Sq, Sk] (added to the scaled scores)
//   attr    scale (float, default 1)
//   output  [..., Sq, Dv]
// Q, KT and V share their leading (batch and head) dims.
#include <cstdint>
#include <vector>

#include "core/ir/shape.h"

namespace rammer::ops {

// Head dims (D, Dv) up to this: the rKernels keep a query row and an output
// row in registers, and AttentionFusion fuses no wider heads.
inline constexpr int64_t kAttentionMaxHeadDim = 128;

struct AttentionShape {
  ir::Shape batch;  // the leading dims
  int64_t sq = 0, d = 0, sk = 0, dv = 0;
  // Mask element strides over [batch..., Sq, Sk]: 0 along broadcast dims;
  // empty without a mask.
  std::vector<int64_t> maskStride;

  int64_t batches() const;
  bool hasMask() const { return !maskStride.empty(); }
  // Offset into the mask of flat batch index b, query i, key j.
  int64_t maskOffset(int64_t b, int64_t i, int64_t j) const;

  // OpError naming the operand whose shape does not fit; all shapes known.
  static AttentionShape of(const ir::Shape& q, const ir::Shape& kt, const ir::Shape& v, const ir::Shape* mask);
};

}  // namespace rammer::ops
