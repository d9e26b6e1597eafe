#pragma once
// Loads an ONNX model file into an ir::Graph. No ONNX/protobuf type appears
// in this header so that viz/ and app/ never see them.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/ir/graph.h"

namespace rammer::ops {
class OpRegistry;
}

namespace rammer::onnx_import {

struct ImportOptions {
  // Binds symbolic (or unknown) leading dims of graph inputs, and every other
  // dim with the same symbolic name, to this batch size.
  std::optional<int64_t> batch;
  // Binds graph inputs by name to concrete shapes (e.g. from given inputs);
  // known dims must agree.
  std::map<std::string, ir::Shape> inputShapes;
  // Run type inference after loading (normally on).
  bool inferTypes = true;
  // The operators the model may use (and their type inference); nullptr
  // means ops::OpRegistry::builtin(). Tests and tools may pass their own.
  const ops::OpRegistry* registry = nullptr;
};

// Reads and converts a model. Errors name the problem (and the node or value
// at fault): unreadable or malformed files, unsupported operators (all of
// them, with counts), cycles, dangling inputs, type mismatches, absurd dims,
// external data outside the model's folder.
ir::Result<ir::Graph> importModel(const std::filesystem::path& file, const ImportOptions& options = {});

// Same, from bytes already in memory; `baseDir` resolves external data and
// `displayName` names the model in messages. An empty `baseDir` refuses
// external data.
ir::Result<ir::Graph> importModelFromBytes(const std::string& bytes, const std::filesystem::path& baseDir,
                                           const std::string& displayName, const ImportOptions& options = {});

}  // namespace rammer::onnx_import
