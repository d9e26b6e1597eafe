#pragma once
// Declared value types (ValueInfoProto) -> ir types with symbolic dim names.
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/ir/shape.h"

namespace rammer::onnx_import {

struct DeclaredType {
  ir::TensorType type;
  std::vector<std::string> dimParams;  // same rank as type.shape when a shape is declared
};

// The declared tensor type of `info` (an unknown rank when no shape is
// declared), or an error message naming the value: non-tensor types,
// unsupported element types, absurd dims.
struct DeclaredTypeResult {
  std::optional<DeclaredType> value;
  std::string error;
};
DeclaredTypeResult declaredType(const onnx::ValueInfoProto& info);

}  // namespace rammer::onnx_import
