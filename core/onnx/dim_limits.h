#pragma once
// Sanity limits on declared dims and element counts: anything larger is a
// corrupt or hostile model, refused before memory is allocated for it.
#include <cstdint>
#include <optional>
#include <string>

#include "core/ir/shape.h"

namespace rammer::onnx_import {

inline constexpr int64_t kMaxDim = int64_t{1} << 31;
inline constexpr int64_t kMaxElements = int64_t{1} << 34;

// Why `dims` is absurd, or nullopt. Unknown dims (-1) are allowed and skipped
// in the element count; the product is checked without overflowing.
inline std::optional<std::string> checkDims(const ir::Shape& dims) {
  int64_t count = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i];
    if (d < ir::kUnknownDim || d > kMaxDim)
      return "dim " + std::to_string(i) + " is " + std::to_string(d) + " (allowed: 0..2^31, or unknown)";
    if (d <= 0) {
      if (d == 0) count = 0;
      continue;
    }
    if (count > kMaxElements / d) return "shape " + ir::shapeToString(dims) + " has more than 2^34 elements";
    count *= d;
  }
  return std::nullopt;
}

}  // namespace rammer::onnx_import
