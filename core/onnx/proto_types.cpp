#include "core/onnx/proto_types.h"

#include "core/onnx/dim_limits.h"

namespace rammer::onnx_import {

DeclaredTypeResult declaredType(const onnx::ValueInfoProto& info) {
  const std::string& name = info.name();
  DeclaredType out;
  out.type.rankKnown = false;
  if (!info.has_type()) return {out, {}};  // allowed: the type comes from inference
  const onnx::TypeProto& tp = info.type();
  if (!tp.has_tensor_type()) {
    const char* kind = tp.has_sequence_type() ? "a sequence" : tp.has_map_type() ? "a map"
                     : tp.has_optional_type() ? "an optional" : tp.has_sparse_tensor_type() ? "a sparse tensor"
                     : "not a tensor";
    if (tp.value_case() == onnx::TypeProto::VALUE_NOT_SET) return {out, {}};
    return {std::nullopt, "value '" + name + "' is " + kind + "; only dense tensors are supported"};
  }
  const auto& tt = tp.tensor_type();
  const auto dt = ir::dtypeFromOnnx(tt.elem_type());
  if (!dt)
    return {std::nullopt, "value '" + name + "' has unsupported element type " + std::to_string(tt.elem_type()) +
                              " (" +
                              (onnx::TensorProto::DataType_IsValid(tt.elem_type())
                                   ? onnx::TensorProto::DataType_Name(
                                         static_cast<onnx::TensorProto::DataType>(tt.elem_type()))
                                   : std::string("unknown")) +
                              ")"};
  out.type.dtype = *dt;
  if (!tt.has_shape()) return {out, {}};
  out.type.rankKnown = true;
  for (const auto& d : tt.shape().dim()) {
    if (d.has_dim_value()) {
      out.type.shape.push_back(d.dim_value());
      out.dimParams.emplace_back();
    } else {
      out.type.shape.push_back(ir::kUnknownDim);
      out.dimParams.push_back(d.has_dim_param() ? d.dim_param() : std::string());
    }
  }
  if (auto why = checkDims(out.type.shape))
    return {std::nullopt, "value '" + name + "' declares absurd dims " + ir::shapeToString(out.type.shape) + ": " + *why};
  return {out, {}};
}

}  // namespace rammer::onnx_import
