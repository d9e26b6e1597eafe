#pragma once
// Keeps the weights out of protobuf: the initializers' raw_data payloads are
// cut from a serialized ModelProto before it is parsed, and handed to the
// tensor conversion as views into the original bytes. The weights are then
// copied once (file -> tensor) instead of twice (file -> proto -> tensor);
// fresh large buffers are costly (page faults), so this halves import time
// of big models.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rammer::onnx_import {

struct SplitModel {
  std::string stripped;  // the same ModelProto without initializer raw_data
  // Per initializer of the graph, in order: its raw_data (a view into the
  // original bytes), or nullopt when it had none.
  std::vector<std::optional<std::string_view>> initializerRaw;
};

// nullopt when the bytes are not plain protobuf wire format (truncated,
// groups, zero field numbers): the caller then parses them as they are and
// protobuf reports the problem.
std::optional<SplitModel> splitInitializerRawData(std::string_view model);

}  // namespace rammer::onnx_import
