#pragma once
// Which ONNX versions the importer accepts.
#include <cstdint>
#include <string>
#include <variant>

#include <onnx/onnx_pb.h>

namespace rammer::onnx_import {

// IR versions 3 (ONNX 1.0) to 11 (ONNX 1.18): older files predate the
// opset_import field, newer ones may use constructs this importer lacks.
inline constexpr int64_t kMinIrVersion = 3;
inline constexpr int64_t kMaxIrVersion = 11;
// Default-domain opsets whose operator semantics the ops library handles.
inline constexpr int64_t kMinOpset = 6;
inline constexpr int64_t kMaxOpset = 18;

// The model's default-domain opset, or why the model is refused (no graph,
// IR version or opset outside the supported range).
std::variant<int64_t, std::string> checkModelVersion(const onnx::ModelProto& model);

}  // namespace rammer::onnx_import
