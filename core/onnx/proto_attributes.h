#pragma once
// AttributeProto -> ir::Attributes.
#include <filesystem>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/ir/attributes.h"

namespace rammer::onnx_import {

// Converts every attribute of `node` (named `nodeName`) into `out`. Returns
// error messages: subgraph attributes (If/Loop/Scan bodies), sparse or type
// attributes, bad tensors. Tensor attributes' data is consumed.
std::vector<std::string> convertAttributes(onnx::NodeProto& node, const std::string& nodeName,
                                           const std::filesystem::path& baseDir, ir::Attributes& out);

}  // namespace rammer::onnx_import
