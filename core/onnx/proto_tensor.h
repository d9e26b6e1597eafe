#pragma once
// onnx::TensorProto <-> ir::Tensor. Private to core/onnx: it exposes the
// protobuf types.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "core/ir/diagnostic.h"
#include "core/ir/tensor.h"

namespace rammer::onnx_import {

// Converts a tensor, reading external data below `baseDir` (empty: external
// data is refused). Consumes the proto's raw_data, so the weights are copied
// once (proto -> tensor) and the proto's copy is freed at once. Errors name
// the tensor (`name` when the proto has none, e.g. an attribute tensor).
ir::Result<ir::Tensor> tensorFromProto(onnx::TensorProto& proto, const std::filesystem::path& baseDir,
                                       const std::string& name = {});
// Same, with the raw_data held outside the proto (see raw_data_split.h);
// nullopt: the proto's own fields hold the data.
ir::Result<ir::Tensor> tensorFromSplitProto(onnx::TensorProto& proto, std::optional<std::string_view> rawData,
                                       const std::filesystem::path& baseDir, const std::string& name = {});

// Numeric tensors are written as raw_data (little-endian), strings as
// string_data.
onnx::TensorProto tensorToProto(const ir::Tensor& tensor, const std::string& name);

}  // namespace rammer::onnx_import
