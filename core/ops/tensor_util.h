#pragma once
// Helpers shared by the shape and data-movement ops (tensor_*.cpp): checked
// sizes, reading small integer inputs, and dtype-agnostic element copies
// (bytes by element size, or std::string for string tensors).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/ops/op_context.h"
#include "core/ops/op_registry.h"

namespace rammer::ops::tensor {

// Element count of a fully known shape; OpError when a dim is negative, the
// product overflows or the tensor would be absurdly large for this executor.
int64_t checkedNumel(const OpContext& ctx, const ir::Shape& shape, ir::DType dtype);
// A zero-filled tensor after checkedNumel().
ir::Tensor makeTensor(const OpContext& ctx, ir::DType dtype, const ir::Shape& shape);

// Row-major element strides.
std::vector<int64_t> stridesOf(const ir::Shape& shape);
// Product of dims [begin, end); kUnknownDim if any of them is unknown.
int64_t dimProduct(const ir::Shape& shape, size_t begin, size_t end);

// Copies `count` consecutive elements; any dtype, string tensors included.
void copyElements(const ir::Tensor& src, int64_t srcIndex, ir::Tensor& dst, int64_t dstIndex, int64_t count);
// Output element at multi-index (o_0..o_r-1) is src[sum_a offsets[a][o_a]],
// or `fill`'s only element when any offsets[a][o_a] is negative (fill may be
// null only when no offset is negative). offsets[a].size() == outShape[a].
ir::Tensor gatherByAxes(const OpContext& ctx, const ir::Tensor& src, const ir::Shape& outShape,
                        const std::vector<std::vector<int64_t>>& offsets, const ir::Tensor* fill);
// The working memory of gatherByAxes (OpDef::scratch): an int64 source
// index per element of the first output and an offset table per axis.
int64_t indexTableScratch(const OpContext& ctx, std::span<const ir::TensorType> outputs);
// out.shape[a] = in.shape[perm[a]].
ir::Tensor transposeTensor(const OpContext& ctx, const ir::Tensor& src, std::span<const int64_t> perm);

// The integer elements of input i (int32/int64, rank 0 or 1), or nullopt
// when its value is not known yet. OpError on other dtypes or ranks.
std::optional<std::vector<int64_t>> knownInts(const OpContext& ctx, size_t i, const std::string& what);
// Same, but the value must be known.
std::vector<int64_t> requireInts(const OpContext& ctx, size_t i, const std::string& what);
// Length of a 1-D input from its type when known, else nullopt.
std::optional<int64_t> knownLength(const OpContext& ctx, size_t i);

// Normalised, duplicate-free axes against `rank`.
std::vector<int64_t> normalizeAxes(const OpContext& ctx, const std::vector<int64_t>& axes, int64_t rank);

// "[2, -1, 0]": a requested shape, printed verbatim (shapeToString shows -1 as "?").
std::string intsToString(std::span<const int64_t> v);

// An OpDef with a data-independent FLOP count of 0 (all ops here); `infer`
// gives the type of the single output.
OpDef defineOp(std::string type, OpCategory category, std::function<ir::TensorType(const OpContext&)> infer,
               ComputeFn compute);

inline ir::TensorType unknownRank(ir::DType dtype) { return ir::TensorType{dtype, {}, false}; }
inline ir::TensorType unknownDims(ir::DType dtype, int64_t rank) {
  return ir::TensorType{dtype, ir::Shape(static_cast<size_t>(rank), ir::kUnknownDim), true};
}

}  // namespace rammer::ops::tensor
