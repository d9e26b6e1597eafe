#pragma once
// Run-time words. Generated programs and the emulator hold every tensor an
// rKernel reads or writes at run time in 32-bit words, so one buffer layout,
// one pointer type and one cost per element serve every value:
//   float32            its own bits;
//   int32, int64, bool, int8, uint8, int16, uint16   an int32 value (bool 0 or
//   1).
// int64 is narrowed, as TensorRT does: token ids, indices, masks and
// ArgMax results fit, and a value outside int32 is refused where it enters
// (a graph input or a constant), never wrapped silently. Other types
// (float64, float16, uint32, uint64, string) have no word: rKernels refuse
// them with a message naming the op and the type.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/dtype.h"
#include "core/ir/tensor.h"

namespace rammer::ir {

enum class WordKind { Float, Int };

// How a value of this type is held at run time; nullopt: it is not.
std::optional<WordKind> wordKindOf(DType t);
inline bool heldAsWords(DType t) { return wordKindOf(t).has_value(); }

// `t` as `numel` words; an error naming `what` for a wrong size, a type
// without words, or an integer outside int32.
Result<std::vector<float>> toWords(const Tensor& t, int64_t numel, const std::string& what);

// A tensor of `dtype` from the words that hold it (Undefined reads as float32).
Tensor fromWords(DType dtype, const Shape& shape, std::span<const float> words);

// One word's int32 value, and an int32 value as a word (bit copies).
int32_t wordToInt(float w);
float intToWord(int32_t v);

}  // namespace rammer::ir
