#pragma once
// Element types of tensors. The numbering is ONNX's TensorProto.DataType so
// conversion at import is a checked cast.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rammer::ir {

enum class DType : int32_t {
  Undefined = 0,
  Float32 = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Float64 = 11,
  UInt32 = 12,
  UInt64 = 13,
};

// Bytes per element; 0 for Undefined and String (not storable here).
std::size_t dtypeSize(DType t);
std::string_view dtypeName(DType t);
std::optional<DType> dtypeFromOnnx(int32_t onnxType);
bool isFloating(DType t);
bool isInteger(DType t);

}  // namespace rammer::ir
