#include "core/onnx/model_version.h"

namespace rammer::onnx_import {

std::variant<int64_t, std::string> checkModelVersion(const onnx::ModelProto& model) {
  if (!model.has_graph()) {
    // Arbitrary bytes sometimes parse as a protobuf with only unknown fields.
    if (model.ir_version() == 0 && model.opset_import_size() == 0)
      return std::string("is not a valid ONNX model: it has neither a graph nor an IR version");
    return std::string("is not a valid ONNX model: it has no graph");
  }
  const std::string range = " (supported: " + std::to_string(kMinIrVersion) + ".." + std::to_string(kMaxIrVersion) + ")";
  if (model.ir_version() < kMinIrVersion || model.ir_version() > kMaxIrVersion)
    return "ONNX IR version " + std::to_string(model.ir_version()) + " is not supported" + range;

  int64_t opset = -1;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  const std::string opsets = " (supported: " + std::to_string(kMinOpset) + ".." + std::to_string(kMaxOpset) + ")";
  if (opset < 0) return "the model imports no default-domain (ai.onnx) opset" + opsets;
  if (opset < kMinOpset || opset > kMaxOpset)
    return "default-domain opset " + std::to_string(opset) + " is not supported" + opsets;
  return opset;
}

}  // namespace rammer::onnx_import
