#pragma once
// GraphProto -> ir::Graph with the structural checks: names, producers,
// dangling inputs, declared types, unsupported operators, cycles.
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/ir/graph.h"
#include "core/onnx/error_list.h"
#include "core/ops/op_registry.h"

namespace rammer::onnx_import {

// Builds the graph, consuming the protos' tensor data. `initializerRaw`,
// when not empty, holds each initializer's raw_data cut out of the proto
// (raw_data_split.h). Every problem found goes to `errors`; the graph is only
// meaningful when `errors` stays empty.
ir::Graph buildGraph(onnx::GraphProto& proto, const std::vector<std::optional<std::string_view>>& initializerRaw,
                     const std::filesystem::path& baseDir, const ops::OpRegistry& registry, ErrorList& errors);

}  // namespace rammer::onnx_import
