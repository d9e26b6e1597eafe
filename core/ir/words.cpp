#include "core/ir/words.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace rammer::ir {

std::optional<WordKind> wordKindOf(DType t) {
  switch (t) {
    case DType::Float32:
      return WordKind::Float;
    case DType::Int32:
    case DType::Int64:
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16:
    case DType::UInt16:
      return WordKind::Int;
    default:
      return std::nullopt;
  }
}

int32_t wordToInt(float w) { return std::bit_cast<int32_t>(w); }
float intToWord(int32_t v) { return std::bit_cast<float>(v); }

Result<std::vector<float>> toWords(const Tensor& t, int64_t numel, const std::string& what) {
  if (t.numel() != numel)
    return makeError(what + " has " + std::to_string(t.numel()) + " elements, its buffer " + std::to_string(numel));
  const std::optional<WordKind> kind = wordKindOf(t.dtype());
  if (!kind)
    return makeError(what + " is " + std::string(dtypeName(t.dtype())) +
                     "; generated programs hold float32, the integer types up "
                     "to int64 (as int32) and bool");
  if (*kind == WordKind::Float) return std::vector<float>(t.values<float>().begin(), t.values<float>().end());
  std::vector<float> out(static_cast<size_t>(numel));
  for (int64_t i = 0; i < numel; ++i) {
    const int64_t v = t.getInt64(i);
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      return makeError(what + " holds " + std::to_string(v) + " at element " + std::to_string(i) +
                       ": int64 values are held as int32 at run time, and this "
                       "one does not fit");
    out[static_cast<size_t>(i)] = intToWord(static_cast<int32_t>(v));
  }
  return out;
}

Tensor fromWords(DType dtype, const Shape& shape, std::span<const float> words) {
  if (dtype == DType::Undefined) dtype = DType::Float32;
  Tensor t(dtype, shape);
  const size_t n = std::min(words.size(), static_cast<size_t>(t.numel()));
  if (dtype == DType::Float32) {
    std::copy_n(words.begin(), n, t.data<float>());
  } else if (wordKindOf(dtype)) {
    for (size_t k = 0; k < n; ++k) t.setDouble(static_cast<int64_t>(k), wordToInt(words[k]));
  } else {  // no words for this type: the values as float32 (the old reading)
    for (size_t k = 0; k < n; ++k) t.setDouble(static_cast<int64_t>(k), words[k]);
  }
  return t;
}

}  // namespace rammer::ir
