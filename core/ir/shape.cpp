#include "core/ir/shape.h"

#include <limits>

namespace rammer::ir {

int64_t numElements(const Shape& s) {
  int64_t n = 1;
  bool saturated = false;
  for (int64_t d : s) {
    if (d < 0) return kUnknownDim;
    // Saturate instead of overflowing: absurd shapes must compare as huge.
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) saturated = true;
    else n *= d;
  }
  if (saturated) {
    for (int64_t d : s)
      if (d == 0) return 0;
    return std::numeric_limits<int64_t>::max();
  }
  return n;
}

bool isFullyKnown(const Shape& s) {
  for (int64_t d : s)
    if (d < 0) return false;
  return true;
}

std::string shapeToString(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += s[i] < 0 ? std::string("?") : std::to_string(s[i]);
  }
  return out + "]";
}

std::string typeToString(const TensorType& t) {
  std::string out(dtypeName(t.dtype));
  return out + (t.rankKnown ? shapeToString(t.shape) : std::string("[*]"));
}

}  // namespace rammer::ir
