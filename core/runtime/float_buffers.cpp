#include "core/runtime/float_buffers.h"

#include <fmt/format.h>

#include <algorithm>

namespace rammer::runtime {

ir::Result<std::vector<float>> floatsOf(const ir::Tensor& t, int64_t numel, const std::string& what) {
  if (t.numel() != numel)
    return ir::makeError(fmt::format("{} has {} elements, its buffer {}", what, t.numel(), numel));
  if (t.dtype() == ir::DType::String) return ir::makeError(what + " is a string tensor; programs compute float32 only");
  if (t.dtype() == ir::DType::Float32) return std::vector<float>(t.values<float>().begin(), t.values<float>().end());
  std::vector<float> out(static_cast<size_t>(numel));
  for (int64_t i = 0; i < numel; ++i) out[static_cast<size_t>(i)] = static_cast<float>(t.getDouble(i));
  return out;
}

ir::Tensor outputTensor(const ir::Value& value, std::span<const float> words) {
  const ir::DType dtype = value.type.dtype == ir::DType::Undefined ? ir::DType::Float32 : value.type.dtype;
  ir::Tensor t(dtype, value.type.shape);
  if (dtype == ir::DType::Float32) std::copy(words.begin(), words.end(), t.data<float>());
  else
    for (size_t k = 0; k < words.size(); ++k) t.setDouble(static_cast<int64_t>(k), words[k]);
  return t;
}

}  // namespace rammer::runtime
