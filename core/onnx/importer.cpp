#include "core/onnx/importer.h"

#include <optional>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "core/onnx/dim_binding.h"
#include "core/onnx/dim_limits.h"
#include "core/onnx/error_list.h"
#include "core/onnx/graph_builder.h"
#include "core/onnx/model_version.h"
#include "core/onnx/proto_parse.h"
#include "core/onnx/raw_data_split.h"
#include "core/ops/type_inference.h"

namespace rammer::onnx_import {

namespace {

constexpr const char* kWhat = "ONNX model";

// Inferred shapes get the same sanity limits as declared ones: an op fed a
// corrupt constant (say Tile by 2^40) must be refused here, not at run time.
void checkInferredDims(const ir::Graph& graph, ErrorList& errors) {
  for (size_t i = 0; i < graph.numValues(); ++i) {
    const ir::Value& v = graph.value(static_cast<ir::ValueId>(i));
    if (!v.type.rankKnown) continue;
    if (auto why = checkDims(v.type.shape)) {
      const std::string node = v.producer == ir::kNone ? std::string() : graph.node(v.producer).name;
      errors.add("value '" + v.name + "' gets absurd dims " + ir::shapeToString(v.type.shape) + ": " + *why, node);
    }
  }
}

// Model bytes -> checked, shape-bound, type-inferred graph. Stops after the
// first stage that finds errors: later stages would only repeat them.
ir::Result<ir::Graph> convertModel(std::string_view bytes, const std::filesystem::path& baseDir,
                                   const std::string& displayName, const ImportOptions& options) {
  onnx::ModelProto model;
  std::optional<SplitModel> split = splitInitializerRawData(bytes);
  if (split) {
    // The stripped bytes parse exactly like the original ones except for the
    // cut payloads; should the initializers not line up, parse the original.
    if (parseBytes(split->stripped, model, kWhat) ||
        model.graph().initializer_size() != static_cast<int>(split->initializerRaw.size())) {
      split.reset();
      model.Clear();
    }
  }
  if (!split) {
    if (auto why = parseBytes(bytes, model, kWhat)) return ir::makeError(*why, {}, displayName);
  }

  auto version = checkModelVersion(model);
  if (const auto* why = std::get_if<std::string>(&version)) return ir::makeError(*why, {}, displayName);

  const ops::OpRegistry& registry = options.registry ? *options.registry : ops::OpRegistry::builtin();
  ErrorList errors(displayName);
  const std::vector<std::optional<std::string_view>> noSplit;
  ir::Graph graph =
      buildGraph(*model.mutable_graph(), split ? split->initializerRaw : noSplit, baseDir, registry, errors);
  if (!errors.empty()) return errors.take();
  graph.opsetVersion = std::get<int64_t>(version);

  bindDims(graph, options, errors);
  if (!errors.empty()) return errors.take();

  if (options.inferTypes) {
    errors.add(ops::inferTypes(graph, {}, registry));
    if (errors.empty()) checkInferredDims(graph, errors);
    if (!errors.empty()) return errors.take();
  }
  return graph;
}

}  // namespace

ir::Result<ir::Graph> importModel(const std::filesystem::path& file, const ImportOptions& options) {
  const std::string displayName = file.string();
  FileBytes bytes;  // mapped: the weights are copied from here into tensors
  if (auto why = bytes.open(file, kWhat)) return ir::makeError(*why, {}, displayName);
  std::filesystem::path baseDir = file.parent_path();
  if (baseDir.empty()) baseDir = ".";
  return convertModel(bytes.bytes(), baseDir, displayName, options);
}

ir::Result<ir::Graph> importModelFromBytes(const std::string& bytes, const std::filesystem::path& baseDir,
                                           const std::string& displayName, const ImportOptions& options) {
  return convertModel(bytes, baseDir, displayName, options);
}

}  // namespace rammer::onnx_import
