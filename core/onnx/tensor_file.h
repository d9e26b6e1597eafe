#pragma once
// Serialized onnx.TensorProto files (input_K.pb / output_K.pb of the ONNX
// backend-test layout).
#include <filesystem>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/tensor.h"

namespace rammer::onnx_import {

struct NamedTensor {
  std::string name;
  ir::Tensor tensor;
};

ir::Result<NamedTensor> readTensorFile(const std::filesystem::path& file);
// The same from bytes in memory (external data refused); `shown` names
// them in messages.
ir::Result<NamedTensor> readTensorBytes(const std::string& bytes, const std::string& shown);
// Empty on success.
std::vector<ir::Diagnostic> writeTensorFile(const std::filesystem::path& file, const ir::Tensor& tensor,
                                            const std::string& name = {});
// Reads DIR/input_0.pb, input_1.pb, ... (or output_K.pb with prefix "output")
// until the next index is missing.
ir::Result<std::vector<NamedTensor>> readTensorDir(const std::filesystem::path& dir,
                                                   const std::string& prefix = "input");

}  // namespace rammer::onnx_import
