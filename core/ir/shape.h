#pragma once
// Tensor shapes and types. A dimension equal to kUnknownDim is not known
// (symbolic and unbound, or not inferable); every other value is an extent.
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/dtype.h"

namespace rammer::ir {

inline constexpr int64_t kUnknownDim = -1;

using Shape = std::vector<int64_t>;

// Product of the dims; 1 for a scalar; kUnknownDim if any dim is unknown;
// INT64_MAX when the product overflows.
int64_t numElements(const Shape& s);
bool isFullyKnown(const Shape& s);
// "[1, 3, 224, 224]", with "?" for unknown dims.
std::string shapeToString(const Shape& s);

// A value's static type. `rankKnown` is false when not even the rank is known.
struct TensorType {
  DType dtype = DType::Undefined;
  Shape shape;
  bool rankKnown = true;

  bool fullyKnown() const { return rankKnown && isFullyKnown(shape); }
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

std::string typeToString(const TensorType& t);

}  // namespace rammer::ir
